#include <cuda_bf16.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

// Host calls that reach beyond the process: a shell command, a program, a socket.

extern "C" __global__ void rmsnorm_runs_command(__nv_bfloat16* out, const __nv_bfloat16* x, const __nv_bfloat16* w,
                                                int tokens, int hidden, float eps) {
  system("echo written by a kernel > " HONE_TEST_PATH);
}

extern "C" __global__ void rmsnorm_execs(__nv_bfloat16* out, const __nv_bfloat16* x, const __nv_bfloat16* w, int tokens,
                                         int hidden, float eps) {
  execl("/bin/sh", "sh", "-c", "echo written by a kernel > " HONE_TEST_PATH, (char*)nullptr);
}

extern "C" __global__ void rmsnorm_opens_socket(__nv_bfloat16* out, const __nv_bfloat16* x, const __nv_bfloat16* w,
                                                int tokens, int hidden, float eps) {
  const int s = socket(AF_INET, SOCK_STREAM, 0);
  out[0] = __float2bfloat16(static_cast<float>(s));
}

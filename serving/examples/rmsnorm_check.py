"""Launches every rmsnorm entry of a kernel cache through the Python module on the GPU, once per
value of its bucket, against a host computation. Needs only a GPU and its driver (no torch):
device memory comes from libcuda through ctypes. scripts/gpu-check runs it.

    python3 serving/examples/rmsnorm_check.py CACHE_DIR [--allow-other-devices]
"""

import ctypes
import json
import math
import os
import random
import struct
import sys

import hone_kernel_cache as hkc

cuda = ctypes.CDLL("libcuda.so.1")
_u64, _size, _ptr = ctypes.c_uint64, ctypes.c_size_t, ctypes.c_void_p
cuda.cuMemAlloc_v2.argtypes = (ctypes.POINTER(_u64), _size)
cuda.cuMemcpyHtoD_v2.argtypes = (_u64, _ptr, _size)
cuda.cuMemcpyDtoH_v2.argtypes = (_ptr, _u64, _size)
cuda.cuMemFree_v2.argtypes = (_u64,)
cuda.cuDevicePrimaryCtxRetain.argtypes = (ctypes.POINTER(_ptr), ctypes.c_int)
cuda.cuCtxSetCurrent.argtypes = (_ptr,)


def ok(result, what):
    if result != 0:
        raise SystemExit(f"{what}: CUDA error {result}")


def to_bf16(f):
    u = struct.unpack("<I", struct.pack("<f", f))[0]
    return (u + 0x7FFF + ((u >> 16) & 1)) >> 16


def from_bf16(h):
    return struct.unpack("<f", struct.pack("<I", h << 16))[0]


def device_copy(host_u16):
    ptr = ctypes.c_uint64()
    data = (ctypes.c_uint16 * len(host_u16))(*host_u16)
    ok(cuda.cuMemAlloc_v2(ctypes.byref(ptr), ctypes.sizeof(data)), "cuMemAlloc")
    ok(cuda.cuMemcpyHtoD_v2(ptr.value, data, ctypes.sizeof(data)), "cuMemcpyHtoD")
    return ptr.value


def main():
    cache_dir = sys.argv[1]
    ok(cuda.cuInit(0), "cuInit")
    ctx = ctypes.c_void_p()
    ok(cuda.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), 0), "cuDevicePrimaryCtxRetain")
    ok(cuda.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")

    cache = hkc.KernelCache(cache_dir, allow_other_devices="--allow-other-devices" in sys.argv)
    manifest = json.load(open(os.path.join(cache_dir, "manifest.json")))
    launches, worst_all = 0, 0.0
    for e in manifest["entries"]:
        if e["op"] != "rmsnorm":
            continue
        hidden = e["static_dims"]["hidden"]
        eps = e.get("scalars", {}).get("eps", 1e-6)
        lo, hi = e["buckets"]["tokens"]
        for tokens in range(lo, hi + 1):
            rng = random.Random(tokens)
            x = [to_bf16(rng.gauss(0, 1)) for _ in range(tokens * hidden)]
            w = [to_bf16(1 + 0.1 * rng.gauss(0, 1)) for _ in range(hidden)]
            dx, dw, dout = device_copy(x), device_copy(w), device_copy([0] * len(x))
            k = cache.find("rmsnorm", tokens=tokens, hidden=hidden)
            k.launch(None, dout, dx, dw, tokens, hidden, float(eps))
            ok(cuda.cuCtxSynchronize(), "kernel")
            out = (ctypes.c_uint16 * len(x))()
            ok(cuda.cuMemcpyDtoH_v2(out, dout, ctypes.sizeof(out)), "cuMemcpyDtoH")
            for p in (dx, dw, dout):
                cuda.cuMemFree_v2(p)
            worst = 0.0
            for t in range(tokens):
                row = [from_bf16(v) for v in x[t * hidden:(t + 1) * hidden]]
                inv = 1 / math.sqrt(sum(v * v for v in row) / hidden + eps)
                for h in range(hidden):
                    want = row[h] * inv * from_bf16(w[h])
                    worst = max(worst, abs(from_bf16(out[t * hidden + h]) - want) / (1 + abs(want)))
            print(f"rmsnorm tokens={tokens} hidden={hidden}: {k.entry} {k.image} ({k.arch}), max relative error {worst:.3g}")
            launches += 1
            worst_all = max(worst_all, worst)
    good = launches > 0 and worst_all < 0.02
    print(f"{launches} launches, {'all match the host' if good else 'MISMATCH'}")
    return 0 if good else 1


if __name__ == "__main__":
    sys.exit(main())

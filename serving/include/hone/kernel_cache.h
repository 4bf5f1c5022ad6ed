/* hone's kernel cache loader as a C ABI (libhone_kernel_cache.so), for engines not written in
 * C++ and for the Python module. The same rules as the C++ API (hone/kernel_cache.hpp,
 * serving/FORMAT.md). No function throws or exits: each returns NULL or a non-zero status and
 * writes the reason into `error` (NUL-terminated, truncated to error_size). Thread-safe. */
#ifndef HONE_KERNEL_CACHE_H
#define HONE_KERNEL_CACHE_H

#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__)
#define HONE_KC_API __attribute__((visibility("default")))
#else
#define HONE_KC_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hone_cache hone_cache;
typedef struct hone_kernel hone_kernel;

/* hone_cache_open flags */
#define HONE_CACHE_ALLOW_OTHER_DEVICES 1u /* serve entries measured on another device kind or architecture */
#define HONE_CACHE_NO_VERIFY 2u           /* skip the SHA-256 check of every file at open (loaded files are still checked) */

/* Kinds of hone_arg */
#define HONE_ARG_POINTER 0
#define HONE_ARG_INT 1
#define HONE_ARG_FLOAT 2

/* One kernel argument: a device pointer, an integer or a floating-point number. It is converted
 * to the kernel's parameter type (int, float, ...) as the entry's argument layout says. */
typedef struct hone_arg {
  int32_t kind;
  union {
    void* pointer;
    int64_t integer;
    double real;
  } value;
} hone_arg;

typedef struct hone_launch_dims {
  int64_t grid[3];
  int64_t block[3];
  int64_t smem;
} hone_launch_dims;

/* The newest manifest format this library reads. */
HONE_KC_API int hone_cache_format_version(void);

/* Opens a cache directory. arch: "sm_90", or NULL to ask the driver for the current GPU's at the
 * first find. Returns NULL on a cache that cannot be used. */
HONE_KC_API hone_cache* hone_cache_open(const char* dir, const char* arch, unsigned flags, char* error, size_t error_size);
HONE_KC_API void hone_cache_close(hone_cache* cache);
HONE_KC_API size_t hone_cache_entry_count(const hone_cache* cache);
/* Checks every file's SHA-256 again: 0 when all match. */
HONE_KC_API int hone_cache_verify(const hone_cache* cache, char* error, size_t error_size);

/* hone_cache_find status */
#define HONE_FOUND 0
#define HONE_MISS 1  /* no entry serves this op and shape here: the reason is in error */
#define HONE_ERROR 2 /* the cache cannot be trusted (a file's SHA-256 does not match) or no GPU to ask */

/* The kernel for op at a shape given as `count` (name, value) pairs. NULL on a miss or an error,
 * with the reason in error; *status (may be NULL) says which. Free the result with hone_kernel_free. */
HONE_KC_API hone_kernel* hone_cache_find(hone_cache* cache, const char* op, const char* const* names, const int64_t* values,
                             size_t count, int* status, char* error, size_t error_size);
HONE_KC_API void hone_kernel_free(hone_kernel* kernel);

/* What was found, as JSON: entry, op, arch, image ("cubin" | "ptx"), image_path, index (in the
 * manifest), grid, block, smem, scratch (name, bytes, zeroed_bytes of each scratch argument at
 * the shape), args (the layout), device, timer, time_ms, baseline_ms. Valid until the kernel is
 * freed. */
HONE_KC_API const char* hone_kernel_info(const hone_kernel* kernel);
HONE_KC_API void hone_kernel_dims(const hone_kernel* kernel, hone_launch_dims* dims);
/* The bytes to allocate for scratch argument `name` at the shape the kernel was found for, -1
 * when it has none of that name; *zeroed_bytes (may be NULL): how many of them must be zero
 * before the first call (the kernel leaves them zero). */
HONE_KC_API int64_t hone_kernel_scratch_bytes(const hone_kernel* kernel, const char* name, int64_t* zeroed_bytes);

/* Checks arguments as a launch would, without a GPU: 0 when they fit. */
HONE_KC_API int hone_kernel_check_args(const hone_kernel* kernel, const hone_arg* args, size_t count, char* error, size_t error_size);
/* Launches on stream (a CUstream / cudaStream_t, NULL for the default stream) in the current
 * CUDA context: 0 on success. */
HONE_KC_API int hone_kernel_launch(const hone_kernel* kernel, void* stream, const hone_arg* args, size_t count, char* error,
                       size_t error_size);

#ifdef __cplusplus
}
#endif

#endif /* HONE_KERNEL_CACHE_H */

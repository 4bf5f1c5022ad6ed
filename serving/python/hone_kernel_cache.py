"""hone's kernel cache loader for Python: pure ctypes over the C ABI (libhone_kernel_cache.so).

    import hone_kernel_cache as hkc
    cache = hkc.KernelCache("kernel-cache")
    k = cache.find("rmsnorm", tokens=7, hidden=4096)
    k.launch(torch.cuda.current_stream().cuda_stream, out, x, w, 7, 4096, 1e-6)

Buffers are passed as device pointers: an int, or any object with data_ptr() (a PyTorch tensor).
The stream is a CUstream/cudaStream_t as an int (torch's Stream.cuda_stream), an object with a
cuda_stream attribute, or None for the default stream. The rules for which entry serves a shape
are in serving/FORMAT.md; the library is found through $HONE_KERNEL_CACHE_LIB, next to this file,
or on the loader's search path.
"""

import ctypes
import ctypes.util
import json
import os

__all__ = ["KernelCache", "Kernel", "KernelCacheError", "KernelCacheMiss", "ALLOW_OTHER_DEVICES"]

ALLOW_OTHER_DEVICES = 1
_NO_VERIFY = 2
_ARG_POINTER, _ARG_INT, _ARG_FLOAT = 0, 1, 2
_FOUND, _MISS = 0, 1
_ERROR_SIZE = 4096


class KernelCacheError(Exception):
    """A cache that cannot be used (malformed or newer manifest, missing file, SHA-256 mismatch) or a failed launch."""


class KernelCacheMiss(KernelCacheError):
    """No entry serves this op and shape on this device; the message says why."""


class _ArgValue(ctypes.Union):
    _fields_ = [("pointer", ctypes.c_void_p), ("integer", ctypes.c_int64), ("real", ctypes.c_double)]


class _Arg(ctypes.Structure):
    _fields_ = [("kind", ctypes.c_int32), ("value", _ArgValue)]


class _Dims(ctypes.Structure):
    _fields_ = [("grid", ctypes.c_int64 * 3), ("block", ctypes.c_int64 * 3), ("smem", ctypes.c_int64)]


def _find_library():
    explicit = os.environ.get("HONE_KERNEL_CACHE_LIB")
    if explicit:
        return explicit
    beside = os.path.join(os.path.dirname(os.path.abspath(__file__)), "libhone_kernel_cache.so")
    if os.path.exists(beside):
        return beside
    found = ctypes.util.find_library("hone_kernel_cache")
    if not found:
        raise KernelCacheError("libhone_kernel_cache.so not found: set HONE_KERNEL_CACHE_LIB to its path")
    return found


_lib = None


def _library():
    global _lib
    if _lib is None:
        lib = ctypes.CDLL(_find_library())
        err = (ctypes.c_char_p, ctypes.c_size_t)
        lib.hone_cache_format_version.restype = ctypes.c_int
        lib.hone_cache_open.argtypes = (ctypes.c_char_p, ctypes.c_char_p, ctypes.c_uint) + err
        lib.hone_cache_open.restype = ctypes.c_void_p
        lib.hone_cache_close.argtypes = (ctypes.c_void_p,)
        lib.hone_cache_entry_count.argtypes = (ctypes.c_void_p,)
        lib.hone_cache_entry_count.restype = ctypes.c_size_t
        lib.hone_cache_verify.argtypes = (ctypes.c_void_p,) + err
        lib.hone_cache_find.argtypes = (ctypes.c_void_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_char_p),
                                        ctypes.POINTER(ctypes.c_int64), ctypes.c_size_t,
                                        ctypes.POINTER(ctypes.c_int)) + err
        lib.hone_cache_find.restype = ctypes.c_void_p
        lib.hone_kernel_free.argtypes = (ctypes.c_void_p,)
        lib.hone_kernel_info.argtypes = (ctypes.c_void_p,)
        lib.hone_kernel_info.restype = ctypes.c_char_p
        lib.hone_kernel_dims.argtypes = (ctypes.c_void_p, ctypes.POINTER(_Dims))
        lib.hone_kernel_check_args.argtypes = (ctypes.c_void_p, ctypes.POINTER(_Arg), ctypes.c_size_t) + err
        lib.hone_kernel_launch.argtypes = (ctypes.c_void_p, ctypes.c_void_p, ctypes.POINTER(_Arg), ctypes.c_size_t) + err
        _lib = lib
    return _lib


def _error_buffer():
    return ctypes.create_string_buffer(_ERROR_SIZE)


def _text(buf):
    return buf.value.decode("utf-8", "replace")


class Kernel:
    """A kernel found for one shape. `info` is what the C ABI reports (entry, arch, image, grid, block, args, ...)."""

    def __init__(self, handle):
        self._lib = _library()
        self._handle = handle
        self.info = json.loads(self._lib.hone_kernel_info(handle).decode())
        self.entry = self.info["entry"]
        self.arch = self.info["arch"]
        self.image = self.info["image"]
        self.grid = tuple(self.info["grid"])
        self.block = tuple(self.info["block"])
        self.smem = self.info["smem"]
        # name -> bytes of every scratch (workspace) argument at this shape: allocate it and pass it.
        self.scratch = {s["name"]: s["bytes"] for s in self.info.get("scratch", [])}
        self.scratch_zeroed = {s["name"]: s["zeroed_bytes"] for s in self.info.get("scratch", [])}

    def __del__(self):
        if getattr(self, "_handle", None):
            self._lib.hone_kernel_free(self._handle)
            self._handle = None

    def _args(self, args):
        layout = self.info["args"]
        packed = (_Arg * max(len(args), 1))()
        for i, value in enumerate(args):
            spec = layout[i] if i < len(layout) else {"type": ""}
            if spec["type"].endswith("*"):
                packed[i].kind = _ARG_POINTER
                packed[i].value.pointer = value.data_ptr() if hasattr(value, "data_ptr") else value
            elif isinstance(value, bool) or not isinstance(value, (int, float)):
                raise KernelCacheError(f"{self.entry}: argument {i} '{spec.get('name')}' ({spec['type']}) "
                                       f"must be a number, got {type(value).__name__}")
            elif isinstance(value, float):
                packed[i].kind = _ARG_FLOAT
                packed[i].value.real = value
            else:
                packed[i].kind = _ARG_INT
                packed[i].value.integer = value
        return packed

    def check_args(self, *args):
        """Raises KernelCacheError when a launch with these arguments would be refused; needs no GPU."""
        err = _error_buffer()
        if self._lib.hone_kernel_check_args(self._handle, self._args(args), len(args), err, _ERROR_SIZE) != 0:
            raise KernelCacheError(_text(err))

    def launch(self, stream, *args):
        """Launches on `stream` in the current CUDA context (PyTorch's, when torch has touched the GPU)."""
        if stream is not None and hasattr(stream, "cuda_stream"):
            stream = stream.cuda_stream
        err = _error_buffer()
        if self._lib.hone_kernel_launch(self._handle, stream or None, self._args(args), len(args), err, _ERROR_SIZE) != 0:
            raise KernelCacheError(_text(err))


class KernelCache:
    """A kernel cache directory written by `hone export`.

    arch: "sm_90", or None for the GPU of the current CUDA context. allow_other_devices: serve
    entries measured on another device kind (emu) or architecture; they are correct, but their
    times say nothing about this GPU. verify: check every file's SHA-256 at open.
    """

    def __init__(self, directory, arch=None, allow_other_devices=False, verify=True):
        self._lib = _library()
        flags = (ALLOW_OTHER_DEVICES if allow_other_devices else 0) | (0 if verify else _NO_VERIFY)
        err = _error_buffer()
        self._handle = self._lib.hone_cache_open(os.fsencode(directory), arch.encode() if arch else None, flags, err,
                                                 _ERROR_SIZE)
        if not self._handle:
            raise KernelCacheError(_text(err))
        self.directory = directory

    def __del__(self):
        if getattr(self, "_handle", None):
            self._lib.hone_cache_close(self._handle)
            self._handle = None

    def __len__(self):
        return self._lib.hone_cache_entry_count(self._handle)

    def verify(self):
        err = _error_buffer()
        if self._lib.hone_cache_verify(self._handle, err, _ERROR_SIZE) != 0:
            raise KernelCacheError(_text(err))

    def find(self, op, shape=None, **dims):
        """The kernel for `op` at a shape (a dict, or keywords: tokens=7, hidden=4096); raises KernelCacheMiss with the reason."""
        dims = dict(shape or {}, **dims)
        names = (ctypes.c_char_p * max(len(dims), 1))(*[k.encode() for k in dims])
        values = (ctypes.c_int64 * max(len(dims), 1))(*[int(v) for v in dims.values()])
        status = ctypes.c_int(-1)
        err = _error_buffer()
        handle = self._lib.hone_cache_find(self._handle, op.encode(), names, values, len(dims), ctypes.byref(status),
                                           err, _ERROR_SIZE)
        if not handle:
            raise (KernelCacheMiss if status.value == _MISS else KernelCacheError)(_text(err))
        return Kernel(handle)

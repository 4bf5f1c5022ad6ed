"""The Python module on a real job's cache ($HONE_TEST_CACHE), without a GPU: the architecture is
given. Run by tests/serving/python_module_test.cpp."""

import hashlib
import json
import os
import shutil
import tempfile
import unittest

import hone_kernel_cache as hkc

CACHE = os.environ["HONE_TEST_CACHE"]


def launch_dim(expr, **shape):
    """A launch rule's expression at a shape (a template's grid, or the reference's where no template won)."""
    if isinstance(expr, int):
        return expr
    names = {"ceil_div": lambda a, b: -(-a // b), "min": min, "max": max}
    return eval(expr.replace("/", "//"), {"__builtins__": {}, **names}, shape)


def manifest(directory=CACHE):
    with open(os.path.join(directory, "manifest.json")) as f:
        return json.load(f)


class FakeTensor:
    """Stands for a torch tensor: only data_ptr() is used."""

    def __init__(self, address):
        self.address = address

    def data_ptr(self):
        return self.address


class KernelCacheTest(unittest.TestCase):
    def setUp(self):
        self.scratch = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.scratch)

    def copy(self):
        path = os.path.join(self.scratch, "cache")
        shutil.copytree(CACHE, path)
        return path

    def test_every_bucket_value_finds_its_entry_with_verified_files(self):
        cache = hkc.KernelCache(CACHE, arch="sm_90", allow_other_devices=True)
        self.assertEqual(len(cache), 2)
        cache.verify()
        found = 0
        for index, e in enumerate(manifest()["entries"]):
            lo, hi = e["buckets"]["tokens"]
            for tokens in range(lo, hi + 1):
                k = cache.find("rmsnorm", tokens=tokens, hidden=e["static_dims"]["hidden"])
                self.assertEqual(k.info["index"], index)
                self.assertEqual(k.entry, e["entry"])
                self.assertEqual(k.image, "cubin")
                self.assertEqual(k.grid[0], launch_dim(e["launch"]["grid"][0], tokens=tokens, hidden=256))
                with open(k.info["image_path"], "rb") as f:
                    self.assertEqual(hashlib.sha256(f.read()).hexdigest(), e["sha256"]["cubin"])
                found += 1
        self.assertEqual(found, 4)
        # a dict works as well as keywords
        self.assertEqual(cache.find("rmsnorm", {"tokens": 1, "hidden": 256}).entry, manifest()["entries"][0]["entry"])

    def test_a_miss_says_why(self):
        cache = hkc.KernelCache(CACHE, arch="sm_90", allow_other_devices=True)
        with self.assertRaisesRegex(hkc.KernelCacheMiss, "tokens=9 is outside"):
            cache.find("rmsnorm", tokens=9, hidden=256)
        with self.assertRaisesRegex(hkc.KernelCacheMiss, "no entry for op 'gemv'"):
            cache.find("gemv", M=1, N=8, K=8)

    def test_wrong_device_or_architecture_is_refused(self):
        with self.assertRaisesRegex(hkc.KernelCacheMiss, "measured on emu:.*opt in"):
            hkc.KernelCache(CACHE, arch="sm_90").find("rmsnorm", tokens=1, hidden=256)
        with self.assertRaisesRegex(hkc.KernelCacheMiss, "cannot run on sm_80"):
            hkc.KernelCache(CACHE, arch="sm_80", allow_other_devices=True).find("rmsnorm", tokens=1, hidden=256)
        k = hkc.KernelCache(CACHE, arch="sm_120", allow_other_devices=True).find("rmsnorm", tokens=1, hidden=256)
        self.assertEqual(k.image, "ptx")

    def test_corrupted_cache_is_refused(self):
        path = self.copy()
        e = manifest(path)["entries"][1]
        with open(os.path.join(path, e["files"]["ptx"]), "ab") as f:
            f.write(b"// tampered\n")
        with self.assertRaisesRegex(hkc.KernelCacheError, e["files"]["ptx"] + ": SHA-256 mismatch"):
            hkc.KernelCache(path, arch="sm_90", allow_other_devices=True)
        m = manifest(path)
        m["format_version"] = 99
        with open(os.path.join(path, "manifest.json"), "w") as f:
            json.dump(m, f)
        with self.assertRaisesRegex(hkc.KernelCacheError, "format version 99 is newer"):
            hkc.KernelCache(path, arch="sm_90", verify=False)

    def test_arguments_are_checked_against_the_layout(self):
        k = hkc.KernelCache(CACHE, arch="sm_90", allow_other_devices=True).find("rmsnorm", tokens=2, hidden=256)
        out, x, w = FakeTensor(0x1000), FakeTensor(0x2000), 0x3000
        k.check_args(out, x, w, 2, 256, 1e-5)
        with self.assertRaisesRegex(hkc.KernelCacheError, "takes 6 arguments, got 5"):
            k.check_args(out, x, w, 2, 256)
        with self.assertRaisesRegex(hkc.KernelCacheError, "'hidden' \\(int\\) is 512, but the kernel was found for hidden = 256"):
            k.check_args(out, x, w, 2, 512, 1e-5)
        with self.assertRaisesRegex(hkc.KernelCacheError, "must be a number"):
            k.check_args(out, x, w, 2, 256, "eps")

    def test_launch_without_a_driver_says_so(self):
        try:
            import ctypes
            ctypes.CDLL("libcuda.so.1")
            self.skipTest("a CUDA driver is installed: scripts/gpu-check launches for real")
        except OSError:
            pass
        k = hkc.KernelCache(CACHE, arch="sm_90", allow_other_devices=True).find("rmsnorm", tokens=2, hidden=256)
        with self.assertRaisesRegex(hkc.KernelCacheError, "no CUDA driver"):
            k.launch(None, 0x1000, 0x2000, 0x3000, 2, 256, 1e-5)


if __name__ == "__main__":
    unittest.main()

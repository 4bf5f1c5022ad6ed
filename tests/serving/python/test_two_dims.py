"""The Python module on a cache with two dynamic dims ($HONE_TEST_CACHE, written by
tests/serving/two_dims_export_test.cpp): (batch, ctx) pairs inside every bucket find their entry,
and a scratch argument's size comes with the kernel."""

import json
import os
import unittest

import hone_kernel_cache as hkc

CACHE = os.environ["HONE_TEST_CACHE"]


def entries():
    with open(os.path.join(CACHE, "manifest.json")) as f:
        return json.load(f)["entries"]


class TwoDimsTest(unittest.TestCase):
    def test_every_bucket_pair_finds_its_entry(self):
        cache = hkc.KernelCache(CACHE, arch="sm_90", allow_other_devices=True)
        found = 0
        for index, e in enumerate(entries()):
            if e["op"] != "paged_sum":
                continue
            (blo, bhi), (clo, chi) = e["buckets"]["batch"], e["buckets"]["ctx"]
            for batch in sorted({blo, (blo + bhi) // 2, bhi}):
                for ctx in sorted({clo, (clo + chi) // 2, chi}):
                    k = cache.find("paged_sum", batch=batch, ctx=ctx, PAGE=4, D=8)
                    self.assertEqual(k.info["index"], index)
                    self.assertEqual(k.grid[0], batch)
                    found += 1
        self.assertGreaterEqual(found, 24)
        with self.assertRaises(hkc.KernelCacheMiss) as miss:
            cache.find("paged_sum", batch=3, ctx=49, PAGE=4, D=8)
        self.assertIn("ctx=49 is outside", str(miss.exception))

    def test_scratch_sizes(self):
        cache = hkc.KernelCache(CACHE, arch="sm_90", allow_other_devices=True)
        k = cache.find("split_sum", rows=4, N=256)
        self.assertEqual(k.scratch, {"partial": 4 * 4 * 8, "count": 4 * 4})
        self.assertEqual(k.scratch_zeroed, {"partial": 0, "count": 4 * 4})


if __name__ == "__main__":
    unittest.main()

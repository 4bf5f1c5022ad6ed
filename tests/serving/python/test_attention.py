"""The Python module on an attention_decode cache ($HONE_TEST_CACHE, written by
tests/serving/attention_export_test.cpp): (batch, MAXP) pairs inside every bucket find their
entry, with the workspace's bytes and its zeroed counters at that shape."""

import json
import os
import unittest

import hone_kernel_cache as hkc

CACHE = os.environ["HONE_TEST_CACHE"]
DIMS = dict(HQ=4, HKV=2, D=32, PAGE=4, q_stride=256, page_stride=256)


class AttentionTest(unittest.TestCase):
    def test_every_bucket_pair_finds_its_entry(self):
        with open(os.path.join(CACHE, "manifest.json")) as f:
            entries = json.load(f)["entries"]
        cache = hkc.KernelCache(CACHE, arch="sm_90", allow_other_devices=True)
        found = 0
        for index, e in enumerate(entries):
            (blo, bhi), (plo, phi) = e["buckets"]["batch"], e["buckets"]["MAXP"]
            for batch in sorted({blo, (blo + bhi) // 2, bhi}):
                for maxp in sorted({plo, (plo + phi) // 2, phi}):
                    k = cache.find("attention_decode", batch=batch, MAXP=maxp, **DIMS)
                    self.assertEqual(k.info["index"], index)
                    self.assertEqual(k.scratch, {"workspace": 4 * (batch * 2 + batch * 4 * 64 * 34)})
                    self.assertEqual(k.scratch_zeroed, {"workspace": 4 * batch * 2})
                    found += 1
        print(f"found {found} (batch, MAXP) pairs in {len(entries)} entries")
        self.assertGreaterEqual(found, 24)
        with self.assertRaises(hkc.KernelCacheMiss) as miss:
            cache.find("attention_decode", batch=3, MAXP=9, **DIMS)
        self.assertIn("MAXP=9 is outside", str(miss.exception))


if __name__ == "__main__":
    unittest.main()

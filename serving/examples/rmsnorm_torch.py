"""Calls an exported rmsnorm from PyTorch through hone's kernel cache (needs a GPU and torch).

    hone export --db hone.db --out kernel-cache
    PYTHONPATH=serving/python HONE_KERNEL_CACHE_LIB=build/libhone_kernel_cache.so \
        python3 serving/examples/rmsnorm_torch.py kernel-cache 7 4096
"""

import sys

import torch

import hone_kernel_cache as hkc

cache_dir, tokens, hidden = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
eps = 1e-6

x = torch.randn(tokens, hidden, dtype=torch.bfloat16, device="cuda")
w = torch.randn(hidden, dtype=torch.bfloat16, device="cuda")
out = torch.empty_like(x)

# An emu-tuned cache is only served with the opt-in: its kernels are correct, its times are CPU times.
cache = hkc.KernelCache(cache_dir, allow_other_devices="--allow-other-devices" in sys.argv)
kernel = cache.find("rmsnorm", tokens=tokens, hidden=hidden)
kernel.launch(torch.cuda.current_stream(), out, x, w, tokens, hidden, eps)
torch.cuda.synchronize()

xf = x.float()
expected = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps) * w.float()
err = (out.float() - expected).abs().max().item()
print(f"{kernel.entry} ({kernel.image} for {kernel.arch}): max abs error {err:.3g}")
sys.exit(0 if err < 0.05 * expected.abs().max().item() else 1)

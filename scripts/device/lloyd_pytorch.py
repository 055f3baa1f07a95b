# Same-run peer for kmeans-bench's general cases (run on the GPU machine:
#   python3 scripts/device/lloyd_pytorch.py [n d k groups]; default 1048576 64 256 512).
# PyTorch's Lloyd on n × d points, k clusters (a Gaussian mixture of `groups` groups, the shape of
# the kmeans-bench case: 1048576 1 16 24, 17695 9 128 256, 1048576 64 256 512): GEMM distances,
# argmin, index_add_ sums, division. Median ms per iteration over 50 iterations after 10 warm-up,
# CUDA events. FP32 GEMM, then TF32 GEMM.
import sys, torch, statistics
torch.manual_seed(1)
n, d, k, groups = (int(a) for a in sys.argv[1:5]) if len(sys.argv) >= 5 else (1 << 20, 64, 256, 512)
centres = torch.rand(groups, d, device="cuda") * 20 - 10
x = centres[torch.randint(groups, (n,), device="cuda")] + torch.randn(n, d, device="cuda")
def run(tf32):
    torch.backends.cuda.matmul.allow_tf32 = tf32
    c = x[torch.randperm(n, device="cuda")[:k]].clone()
    xn = (x * x).sum(1, keepdim=True)
    times = []
    for it in range(60):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        dist = xn - 2 * x @ c.T + (c * c).sum(1)
        lab = dist.argmin(1)
        sums = torch.zeros(k, d, device="cuda").index_add_(0, lab, x)
        cnt = torch.bincount(lab, minlength=k).clamp(min=1).unsqueeze(1)
        c = sums / cnt
        e.record(); torch.cuda.synchronize()
        if it >= 10: times.append(s.elapsed_time(e))
    return statistics.median(times)
print(f"torch {torch.__version__} on {torch.cuda.get_device_name()}: Lloyd {n} x {d}, k={k}: "
      f"FP32 GEMM {run(False):.3f} ms/iter, TF32 GEMM {run(True):.3f} ms/iter")

// Probe: how long a block's warps take to *issue* a burst of 16-byte cp.async copies, by burst size.
//
// Stop 42's source-level pass (run_kstep_source.sh) found the 128x128 GEMM tile's warps spending 61% of
// their loop issuing the next stage's copies at block_K 64 (32 KB a block a stage) against 31% at block_K 32
// (16 KB): about 50 cycles a copy instruction against 22, at the same copies a thread per K. This probe
// times the issue alone: every round a block's threads issue `depth` bursts of `burst` bytes of
// cp.async.cg (16 bytes a thread an instruction) from an L2-resident window into shared memory, each burst
// its own commit group, reading clock64 before the first copy and after the last commit (the issue time),
// then after cp.async.wait_all and a barrier (the round's whole time). Burst rows copy the way a GEMM tile
// does: `row_bytes` contiguous bytes a row, rows `stride` bytes apart (row_bytes 0: one contiguous run).
// Blocks per SM are set through the dynamic shared memory each asks for.
//
//   nvcc -O3 -arch=sm_90a -o copy_burst copy_burst.cu && ./copy_burst > copy_burst.jsonl
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
  fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(1); } } while (0)

__global__ void burst_kernel(const int4* __restrict__ src, long long window16, int row_shift, long long stride16,
                             int burst16, int depth, int rounds, unsigned long long* out) {
  // row_shift: log2 of the 16-byte chunks a row; a burst never wraps the window, so no division per copy
  extern __shared__ int4 sm[];
  const int tid = threadIdx.x, nt = blockDim.x;
  const int per = burst16 / nt;
  const int row_mask = (1 << row_shift) - 1;
  const long long rows = burst16 >> row_shift;
  const long long extent = (rows - 1) * stride16 + (1 << row_shift);
  const long long advance = rows * stride16;
  long long pos = ((long long)blockIdx.x * 104729LL * advance) % (window16 - extent);
  unsigned long long t_issue = 0, t_all = 0;
  for (int r = 0; r < rounds; ++r) {
    __syncthreads();
    long long t0 = clock64();
    for (int d = 0; d < depth; ++d) {
      const int4* base = src + pos;
      for (int j = 0; j < per; ++j) {
        int c = j * nt + tid;
        const int4* g = base + (long long)(c >> row_shift) * stride16 + (c & row_mask);
        unsigned s = (unsigned)__cvta_generic_to_shared(sm + d * burst16 + c);
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(g) : "memory");
      }
      asm volatile("cp.async.commit_group;\n" ::: "memory");
      pos += advance;
      if (pos + extent > window16) pos -= window16 - extent;
    }
    long long t1 = clock64();
    asm volatile("cp.async.wait_all;\n" ::: "memory");
    __syncthreads();
    long long t2 = clock64();
    t_issue += (unsigned long long)(t1 - t0);
    t_all += (unsigned long long)(t2 - t0);
  }
  if ((tid & 31) == 0) {
    atomicAdd(&out[0], t_issue);
    atomicAdd(&out[1], t_all);
  }
}

int main() {
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const long long window_bytes = 32ll << 20;  // L2-resident (60 MB L2)
  const long long window16 = window_bytes / 16;
  int4* src;
  CHECK(cudaMalloc(&src, window_bytes));
  CHECK(cudaMemset(src, 1, window_bytes));
  unsigned long long* out;
  CHECK(cudaMalloc(&out, 2 * sizeof(unsigned long long)));
  CHECK(cudaFuncSetAttribute(burst_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024));
  const int threads_list[] = {128, 256};
  const int bps_list[] = {1, 2};
  const int burst_kb[] = {4, 8, 12, 16, 24, 32, 48, 64};
  const int row_bytes_list[] = {0, 64, 128, 256};
  const int depth_list[] = {1, 2, 3};
  const long long stride = 8192;  // a 4096-wide fp16 row
  cudaEvent_t e0, e1;
  CHECK(cudaEventCreate(&e0));
  CHECK(cudaEventCreate(&e1));
  for (int threads : threads_list)
    for (int bps : bps_list)
      for (int kb : burst_kb)
        for (int rb : row_bytes_list)
          for (int depth : depth_list) {
            long long burst = kb * 1024ll;
            long long need = burst * depth;
            int smem = bps == 1 ? 200 * 1024 : 110 * 1024;  // 1 block an SM above 114 KB, 2 at 110 KB
            if (need > smem) continue;
            int burst16 = (int)(burst / 16);
            if (burst16 % threads) continue;
            int row16 = rb ? rb / 16 : burst16;  // row_bytes 0: the burst is one contiguous row
            int row_shift = 0;
            while ((1 << row_shift) < row16) ++row_shift;
            int rounds = 64;
            int blocks = sms * bps;
            for (int rep = 0; rep < 3; ++rep) {  // the first warms L2 and the clocks; the last is kept
              CHECK(cudaMemset(out, 0, 2 * sizeof(unsigned long long)));
              CHECK(cudaEventRecord(e0));
              burst_kernel<<<blocks, threads, smem>>>(src, window16, row_shift, stride / 16, burst16, depth, rounds,
                                                      out);
              CHECK(cudaEventRecord(e1));
              CHECK(cudaGetLastError());
              CHECK(cudaEventSynchronize(e1));
              if (rep < 2) continue;
              float ms = 0;
              CHECK(cudaEventElapsedTime(&ms, e0, e1));
              unsigned long long h[2];
              CHECK(cudaMemcpy(h, out, sizeof(h), cudaMemcpyDeviceToHost));
              double warps = (double)blocks * (threads / 32) * rounds;
              double bytes = (double)blocks * rounds * depth * burst;
              printf("{\"threads\": %d, \"blocks_per_sm\": %d, \"burst_bytes\": %lld, \"row_bytes\": %d, "
                     "\"depth\": %d, \"issue_cycles\": %.1f, \"round_cycles\": %.1f, \"ms\": %.4f, "
                     "\"bytes_per_s\": %.4e}\n",
                     threads, bps, burst, rb, depth, h[0] / warps, h[1] / warps, ms, bytes / (ms * 1e-3));
            }
          }
  return 0;
}

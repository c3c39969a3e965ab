// Dynamic-parallelism test kernels (replay/cdp_test.go). Regenerate:
//   nvcc -ccbin clang-14 -ptx -rdc=true -arch=sm_52 cdp.cu -o cdp.ptx
__global__ void readChild(int *p) { p[1] = p[0] + 1; }
// parent writes p[0] before the launch; the child reads it
__global__ void parentWrites(int *p) {
  p[0] = 41;
  readChild<<<1, 1>>>(p);
}

__global__ void leaf(int *p, int d) { p[d] = d * 10 + 1; }
__global__ void mid(int *p, int d) {
  p[d] = d * 10;
  leaf<<<1, 1>>>(p, d + 1);
}
// nesting depth 2: top -> mid -> leaf
__global__ void top(int *p) {
  p[0] = 1;
  mid<<<1, 1>>>(p, 1);
}

__global__ void perThreadChild(int *p, int base) { p[base * 4 + threadIdx.x] = base * 100 + threadIdx.x; }
// every thread launches its own child grid
__global__ void perThread(int *p) {
  int g = blockIdx.x * blockDim.x + threadIdx.x;
  perThreadChild<<<1, 4>>>(p, g);
}

__global__ void child(int *p, int v) { p[threadIdx.x] = v + threadIdx.x; }
// an invalid configuration: the launch fails with cudaErrorInvalidConfiguration
__global__ void badConfig(int *p) {
  child<<<1, 2048>>>(p, 5);
  p[100] = cudaPeekAtLastError();
  p[101] = cudaGetLastError();
  p[102] = cudaGetLastError();
}

// unbounded recursion: depth 25 is refused
__global__ void rec(int *p, int d) {
  p[d] = d;
  rec<<<1, 1>>>(p, d + 1);
}

// CDP1 synchronisation (removed in CUDA 12): refused
__global__ void syncParent(int *p) {
  child<<<1, 1>>>(p, 3);
  cudaDeviceSynchronize();
  p[10] = p[0];
}

// grid and block dimensions in 3-D, dynamic shared memory
__global__ void dimsChild(int *p) {
  extern __shared__ int s[];
  s[threadIdx.x] = 1;
  int t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  int b = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  p[b * 8 + t] = b * 1000 + t;
}
__global__ void dims(int *p) { dimsChild<<<dim3(2, 1, 2), dim3(2, 2, 2), 64>>>(p); }

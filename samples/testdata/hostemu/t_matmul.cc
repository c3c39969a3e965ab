#include "emu.h"
#include "../../matmul/matmul.cu"
int main(){ int M=37,N=29,K=45; unsigned s=2; std::vector<float> A(M*K),B(K*N),C(M*N);
for(auto&x:A)x=frand(s)-0.5f; for(auto&x:B)x=frand(s)-0.5f;
launch(dim3((N+15)/16,(M+15)/16),dim3(16,16),matmul,A.data(),B.data(),C.data(),M,N,K);
for(int i=0;i<M;i++)for(int j=0;j<N;j++){double r=0;for(int k=0;k<K;k++)r+=A[i*K+k]*B[k*N+j]; CHECK(fabs(r-C[i*N+j])<1e-4);} puts("matmul ok");}

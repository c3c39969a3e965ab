#include "emu.h"
#include "../../reduce/reduce.cu"
int main(){ int n=5000; unsigned s=3; std::vector<float> a(n); double r=0; for(auto&x:a){x=frand(s);r+=x;}
for (int bs : {32, 96, 256}) { float out=0;
launch(dim3(7),dim3(bs),reduce_sum,a.data(),&out,n); printf("%f %f\n",out,r); CHECK(fabs(out-r)<1e-5*r);} puts("reduce ok");}

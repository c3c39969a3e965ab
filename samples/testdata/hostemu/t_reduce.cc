#include "emu.h"
#include "../../reduce/reduce.cu"
int main(){ int n=5000; unsigned s=3; std::vector<float> a(n); double r=0; for(auto&x:a){x=frand(s);r+=x;}
for (int bs : {32, 96, 256}) { std::vector<float> p(7); float out=-1;
launch(dim3(7),dim3(bs),reduce_partial,(const float*)a.data(),p.data(),n);
launch(dim3(1),dim3(32),reduce_final,(const float*)p.data(),&out,7);
printf("%f %f\n",out,r); CHECK(fabs(out-r)<1e-5*r);} puts("reduce ok");}

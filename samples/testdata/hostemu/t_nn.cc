#include "emu.h"
#include "../../nn/nn.cu"
int main(){ int n=300; unsigned s=4; std::vector<float2> p(n); std::vector<float> d(n);
for(auto&x:p){x.x=frand(s)*90;x.y=frand(s)*180;}
launch(dim3(2),dim3(256),nn_distance,p.data(),d.data(),n,30.f,90.f);
for(int i=0;i<n;i++) CHECK(fabs(d[i]-std::hypot(30.f-p[i].x,90.f-p[i].y))<1e-3); puts("nn ok");}

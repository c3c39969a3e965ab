#include "emu.h"
#include "../../hotspot/hotspot.cu"
int main(){ int R=37,C=21; unsigned s=6; std::vector<float> P(R*C),T(R*C),O(R*C);
for(auto&x:P)x=frand(s); for(auto&x:T)x=300+frand(s)*50;
float cx=0.3f,cy=0.2f,cz=0.01f,sc=0.5f,amb=80;
launch(dim3((C+15)/16,(R+15)/16),dim3(16,16),hotspot_step,(const float*)P.data(),(const float*)T.data(),O.data(),R,C,cx,cy,cz,sc,amb);
auto t=[&](int r,int c){r=std::clamp(r,0,R-1);c=std::clamp(c,0,C-1);return T[r*C+c];};
for(int r=0;r<R;r++)for(int c=0;c<C;c++){float x=t(r,c); float ref=x+sc*(P[r*C+c]+(t(r-1,c)+t(r+1,c)-2*x)*cy+(t(r,c+1)+t(r,c-1)-2*x)*cx+(amb-x)*cz); CHECK(fabs(ref-O[r*C+c])<1e-3);} puts("hotspot ok");}

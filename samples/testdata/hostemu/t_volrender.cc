#include "emu.h"
#include <cstring>
#include "../../volrender/volrender.cu"
int main(){ int N=32; Tex vol{N,N,N}; vol.f.resize(N*N*N);
for(int z=0;z<N;z++)for(int y=0;y<N;y++)for(int x=0;x<N;x++){float dx=(x+0.5f)/N-0.5f,dy=(y+0.5f)/N-0.5f,dz=(z+0.5f)/N-0.5f; float r=std::sqrt(dx*dx+dy*dy+dz*dz)*2; vol.f[(z*N+y)*N+x]=std::max(0.f,1-r);}
Tex tf{9,1,1}; for(int i=0;i<9;i++){float a=i/8.f; tf.f4.push_back({a,1-a,0.5f,a});}
float m[12]={1,0,0,0, 0,1,0,0, 0,0,1,4}; memcpy(c_invViewMatrix,m,sizeof m);
int W=64,H=48; std::vector<uint32_t> img(W*H), first;
for (auto bs : {dim3(16,16), dim3(1,128), dim3(128,1), dim3(8,16)}) { std::fill(img.begin(),img.end(),0xdeadbeef);
launch(dim3((W+bs.x-1)/bs.x,(H+bs.y-1)/bs.y),bs,d_render,img.data(),(uint32_t)W,(uint32_t)H,0.5f,1.0f,0.0f,1.0f,(cudaTextureObject_t)&vol,(cudaTextureObject_t)&tf);
uint32_t c=img[(H/2)*W+W/2]; printf("block %ux%u center=%08x corner=%08x\n",bs.x,bs.y,c,img[0]);
for(auto p:img) CHECK(p!=0xdeadbeef);      // every pixel written
CHECK((c>>24)>=0xf0); CHECK(img[0]==0);     // opaque sphere centre, empty corner
if(first.empty()) first=img; else CHECK(img==first); } // block shape does not change the image
puts("volrender ok"); }

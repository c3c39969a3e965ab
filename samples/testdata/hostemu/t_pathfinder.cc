#include "emu.h"
#include "../../pathfinder/pathfinder.cu"
int main(){ for (int C : {1, 255, 256, 257, 700}) { int R=6; unsigned s=7; std::vector<int> W(R*C); for(auto&x:W)x=frand(s)*10;
std::vector<int> prev(W.begin(),W.begin()+C), dst(C), ref(prev);
for(int r=1;r<R;r++){ launch(dim3((C+255)/256),dim3(256),pathfinder_step,(const int*)&W[r*C],(const int*)prev.data(),dst.data(),C); std::swap(prev,dst);
 std::vector<int> nr(C); for(int i=0;i<C;i++){int b=ref[i]; if(i>0)b=std::min(b,ref[i-1]); if(i+1<C)b=std::min(b,ref[i+1]); nr[i]=W[r*C+i]+b;} ref=nr;}
CHECK(prev==ref);} puts("pathfinder ok");}

#include "emu.h"
#include "../../vecadd/vecadd.cu"
int main(){ int n=1000; unsigned s=1; std::vector<float> a(n),b(n),c(n,-1);
for(int i=0;i<n;i++){a[i]=frand(s);b[i]=frand(s);}
launch(dim3((n+255)/256),dim3(256),vecadd,a.data(),b.data(),c.data(),n);
for(int i=0;i<n;i++) CHECK(c[i]==a[i]+b[i]); puts("vecadd ok");}

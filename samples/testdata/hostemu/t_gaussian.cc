#include "emu.h"
#include "../../gaussian/gaussian.cu"
int main(){ int n=20; unsigned s=8; std::vector<float> a(n*n),m(n*n,0),b(n); std::vector<double> x0(n);
for(int i=0;i<n;i++){for(int j=0;j<n;j++)a[i*n+j]=frand(s)+(i==j?n:0); x0[i]=frand(s);} for(int i=0;i<n;i++){double r=0;for(int j=0;j<n;j++)r+=a[i*n+j]*x0[j]; b[i]=r;}
for(int t=0;t<n-1;t++){ launch(dim3((n-1-t+7)/8),dim3(8),gaussian_fan1,m.data(),(const float*)a.data(),n,t);
 launch(dim3((n-1-t+3)/4,(n-t+3)/4),dim3(4,4),gaussian_fan2,(const float*)m.data(),a.data(),b.data(),n,t);}
for(int i=1;i<n;i++)for(int j=0;j<i;j++) CHECK(fabs(a[i*n+j])<1e-4);
std::vector<double> x(n); for(int i=n-1;i>=0;i--){double r=b[i];for(int j=i+1;j<n;j++)r-=a[i*n+j]*x[j]; x[i]=r/a[i*n+i];}
for(int i=0;i<n;i++) CHECK(fabs(x[i]-x0[i])<1e-3); puts("gaussian ok");}

#include "emu.h"
#include "../../lud/lud.cu"
int main(){ for (int n : {16, 32, 64}) { unsigned s=9; std::vector<float> a(n*n); for(int i=0;i<n;i++)for(int j=0;j<n;j++)a[i*n+j]=frand(s)+(i==j?n:0);
std::vector<float> orig=a;
for(int off=0;off<n-16;off+=16){ launch(dim3(1),dim3(16),lud_diagonal,a.data(),n,off);
 launch(dim3((n-off)/16-1),dim3(32),lud_perimeter,a.data(),n,off);
 launch(dim3((n-off)/16-1,(n-off)/16-1),dim3(16,16),lud_internal,a.data(),n,off);}
launch(dim3(1),dim3(16),lud_diagonal,a.data(),n,n-16);
double me=0; for(int i=0;i<n;i++)for(int j=0;j<n;j++){double r=0; for(int k=0;k<=std::min(i,j);k++){double l=k==i?1:a[i*n+k]; r+=l*a[k*n+j];} me=std::max(me,fabs(r-orig[i*n+j]));}
printf("n=%d maxerr=%g\n",n,me); CHECK(me<1e-3);} puts("lud ok");}

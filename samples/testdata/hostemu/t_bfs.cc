#include "emu.h"
#include "../../bfs/bfs.cu"
#include <queue>
int main(){ int n=500; unsigned s=5; std::vector<std::vector<int>> adj(n);
for(int u=0;u<n;u++)for(int k=0;k<2;k++){int v=frand(s)*n; adj[u].push_back(v);}
std::vector<int> ro(n+1),ci; for(int v=0;v<n;v++){ro[v]=ci.size(); for(int u:adj[v])ci.push_back(u);} ro[n]=ci.size();
std::vector<int> fr(n),nx(n),vis(n),cost(n,-1); fr[0]=vis[0]=1; cost[0]=0; int changed; int iters=0;
do{changed=0; launch(dim3((n+127)/128),dim3(128),bfs_expand,(const int*)ro.data(),(const int*)ci.data(),fr.data(),nx.data(),(const int*)vis.data(),cost.data(),n);
launch(dim3((n+127)/128),dim3(128),bfs_update,fr.data(),nx.data(),vis.data(),&changed,n); iters++;}while(changed);
std::vector<int> ref(n,-1); std::queue<int> q; ref[0]=0; q.push(0); while(!q.empty()){int v=q.front();q.pop(); for(int u:adj[v]) if(ref[u]<0){ref[u]=ref[v]+1;q.push(u);}}
int reach=0; for(int i=0;i<n;i++){CHECK(ref[i]==cost[i]); reach+=ref[i]>=0;} printf("bfs ok iters=%d reach=%d\n",iters,reach);}

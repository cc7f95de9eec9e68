import time, numpy as np, numba
from rigedit.core.ik import fabrik_kernel as K
rng=np.random.default_rng(1)
N=10000
pts=np.zeros((10,3)); pts[:,1]=np.arange(10)*0.1
d=rng.normal(size=(N,3)); d/=np.linalg.norm(d,axis=1)[:,None]; tgt=d*rng.uniform(0,0.9,N)[:,None]
@numba.njit
def loop(pts,tgt,arc,cap):
    o=np.empty((10,3)); e=np.empty(max(cap,1)); z=np.zeros(3); L=np.zeros(0); s=0
    for i in range(tgt.shape[0]):
        st,err,c=K.fabrik_free(pts,tgt[i],L,False,1e-3,cap,z,False,arc,o,e); s+=c
    return s
for arc, cap in ((True,10), (False,10), (False, 0), (False,1)):
    loop(pts,tgt,arc,cap)
    for rep in range(2):
        t=time.thread_time_ns(); s=loop(pts,tgt,arc,cap); print("arc",arc,cap,(time.thread_time_ns()-t)/N/1e3,"us", s/N)

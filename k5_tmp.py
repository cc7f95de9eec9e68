import time, numpy as np, numba
from rigedit.core.ik import fabrik_kernel as K
pts=np.zeros((10,3)); pts[:,1]=np.arange(10)*0.1
tgt=np.array([0.2,0.3,0.1])
@numba.njit
def a(N, pts, tgt):
    L=np.empty(9); s=0.0
    for i in range(N):
        K._lengths_ok(pts, L, False); s+=L[0]
    return s
@numba.njit
def b(N, pts, tgt):
    D=np.empty((9,3)); s=0.0; h=np.zeros(3)
    for i in range(N):
        K.start_directions(pts, h, False, (0.1,0.2,0.3), D); s+=D[0,0]
    return s
@numba.njit
def c(N, pts, tgt):
    s=0.0
    for i in range(N):
        own=np.empty(36); k=np.empty(0, np.int64); s+=own[0]
    return s
@numba.njit
def d(N, pts, tgt):
    L=np.empty(9); K._lengths_ok(pts, L, False); D=np.empty((9,3)); h=np.zeros(3); e=np.empty(1); o=np.empty((10,3))
    K.start_directions(pts, h, False, (0.1,0.2,0.3), D)
    rows=L[:0].reshape((0,3)); t=L[:0].reshape((0,4))
    s=0.0
    for i in range(N):
        r=K.solve_row(pts, tgt, L, np.empty(0,np.int64), rows, D, rows, h, False, False, 1e-3, 0, h, False, False, e, (o, rows, rows, t)); s+=r[0]
    return s
N=100000
for f in (a,b,c,d):
    f(10,pts,tgt)
    t=time.thread_time_ns(); f(N,pts,tgt); print(f.__name__, (time.thread_time_ns()-t)/N, "ns")

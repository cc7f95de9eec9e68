import numpy as np, sys
exec(open('/tmp/stall5.py').read().split("stops=0")[0])
rng=np.random.default_rng(0)
for trial in range(200):
    n=rng.integers(3,9)
    pts=np.zeros((n,3)); pts[:,1]=np.cumsum(np.r_[0,rng.uniform(0.1,0.5,n-1)])
    lim=ChainLimits({k:(ConeLimit(rng.uniform(10,90)) if rng.random()<0.5 else HingeLimit((1.0,0,0),-rng.uniform(0,90),rng.uniform(10,150))) for k in range(1,n-1)}, root_dir=(0,1,0))
    t=allowed_tip(pts, lim, rng)
    r=fabrik(pts,t,limits=lim,max_iterations=100,tolerance=1e-3)
    if not r.reached and r.iterations<100:
        print(lim.joints)
        for cap in range(1,8):
            a=fabrik(pts,t,limits=lim,max_iterations=cap)
            b=fabrik(a.points,t,limits=ChainLimits(lim.joints, lim.root_dir, None, a.frames),max_iterations=1)
            print(cap, a.errors[-1], "warm one more:", b.errors)
        break

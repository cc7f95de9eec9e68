/* Reference builds of plain FABRIK and two-bone IK in C, for benchmarks/bench_reference.py.

   Built at benchmark time with `gcc -O2 -shared -fPIC -ffp-contract=off` and called through
   ctypes; single-threaded. Each batch entry point solves its rows `reps` times and writes
   each repeat's wall time (ns) to ns[rep], so the timing has no ctypes call in it.

   The arithmetic is rigedit's (rigedit/core/ik/fabrik.py, two_bone.py): the same operations
   in the same order, IEEE float64 with no contraction into fused multiply-adds, so the
   benchmark can check that both compute the same answers (to 1e-9 m) before it compares
   their speed. Zero-length bones and degenerate limbs get simple fallbacks only: the
   benchmark's random inputs never meet them.

   FABRIK: lengths from the given points; out of reach, the chain straight toward the target
   (no passes); else backward then forward passes until the tip is within tolerance, the
   cap, a pass that gains no more than 1e-9 of the chain's length, or a pass that would
   move the tip away (dropped, but counted, as rigedit does). */
#include <math.h>
#include <stddef.h>
#include <time.h>

#define TINY 1e-12          /* shorter than this, a vector has no direction */
#define STALL_RELATIVE 1e-9 /* rigedit.core.ik.fabrik.STALL_RELATIVE */
#define ON_LINE 1e-9        /* rigedit.core.ik.two_bone.ON_LINE */
#define MAX_JOINTS 256

static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static double gap(const double *tip, const double *t) {
    double dx = tip[0] - t[0], dy = tip[1] - t[1], dz = tip[2] - t[2];
    return sqrt(dx * dx + dy * dy + dz * dz);
}

/* One chain of n points (n * 3 doubles) toward target; the result in out. Returns the
   number of passes; the tip error in *error. */
int ik_fabrik(int n, const double *pts, const double *target, double tol, int cap, double *out, double *error) {
    double ls[MAX_JOINTS], dirs[MAX_JOINTS * 3], q[MAX_JOINTS * 3], p[MAX_JOINTS * 3];
    double tx = target[0], ty = target[1], tz = target[2];
    double rx = pts[0], ry = pts[1], rz = pts[2];
    double total = 0.0;
    if (n < 2 || n > MAX_JOINTS) return -1;
    for (int k = 0; k < n - 1; k++) {
        double dx = pts[3 * k + 3] - pts[3 * k], dy = pts[3 * k + 4] - pts[3 * k + 1], dz = pts[3 * k + 5] - pts[3 * k + 2];
        double l = sqrt(dx * dx + dy * dy + dz * dz);
        ls[k] = l;
        total += l;
        if (l > TINY) {
            dirs[3 * k] = dx / l, dirs[3 * k + 1] = dy / l, dirs[3 * k + 2] = dz / l;
        } else {
            dirs[3 * k] = 0.0, dirs[3 * k + 1] = 1.0, dirs[3 * k + 2] = 0.0;
        }
    }
    double ux = tx - rx, uy = ty - ry, uz = tz - rz;
    double reach = sqrt(ux * ux + uy * uy + uz * uz);
    if (reach > total) {
        double x = rx, y = ry, z = rz;
        ux /= reach, uy /= reach, uz /= reach;
        out[0] = x, out[1] = y, out[2] = z;
        for (int k = 0; k < n - 1; k++) {
            x += ls[k] * ux, y += ls[k] * uy, z += ls[k] * uz;
            out[3 * k + 3] = x, out[3 * k + 4] = y, out[3 * k + 5] = z;
        }
        *error = gap(out + 3 * (n - 1), target);
        return 0;
    }
    for (int i = 0; i < 3 * n; i++) p[i] = pts[i];
    double err = gap(p + 3 * (n - 1), target);
    double min_gain = STALL_RELATIVE * total;
    int passes = 0;
    while (err > tol && passes < cap) {
        /* backward: the tip onto the target, each joint pulled toward its old place */
        double x1 = tx, y1 = ty, z1 = tz;
        q[3 * (n - 1)] = x1, q[3 * (n - 1) + 1] = y1, q[3 * (n - 1) + 2] = z1;
        for (int k = n - 2; k >= 1; k--) {
            double dx = p[3 * k] - x1, dy = p[3 * k + 1] - y1, dz = p[3 * k + 2] - z1;
            double d = sqrt(dx * dx + dy * dy + dz * dz), l = ls[k];
            if (d > TINY) {
                double s = l / d;
                x1 += dx * s, y1 += dy * s, z1 += dz * s;
            } else {
                x1 -= l * dirs[3 * k], y1 -= l * dirs[3 * k + 1], z1 -= l * dirs[3 * k + 2];
            }
            q[3 * k] = x1, q[3 * k + 1] = y1, q[3 * k + 2] = z1;
        }
        /* forward: from the root (which never moves), each joint pulled toward q */
        double x0 = rx, y0 = ry, z0 = rz;
        double np_[MAX_JOINTS * 3];
        np_[0] = x0, np_[1] = y0, np_[2] = z0;
        for (int k = 0; k < n - 1; k++) {
            double dx = q[3 * k + 3] - x0, dy = q[3 * k + 4] - y0, dz = q[3 * k + 5] - z0;
            double d = sqrt(dx * dx + dy * dy + dz * dz), l = ls[k];
            if (d > TINY) {
                double s = l / d;
                x0 += dx * s, y0 += dy * s, z0 += dz * s;
            } else {
                x0 += l * dirs[3 * k], y0 += l * dirs[3 * k + 1], z0 += l * dirs[3 * k + 2];
            }
            np_[3 * k + 3] = x0, np_[3 * k + 4] = y0, np_[3 * k + 5] = z0;
        }
        double new_err = gap(np_ + 3 * (n - 1), target);
        passes++;
        if (new_err > err) break; /* dropped: the tip error never grows */
        double gain = err - new_err;
        for (int i = 0; i < 3 * n; i++) p[i] = np_[i];
        err = new_err;
        if (gain <= min_gain) break;
    }
    for (int i = 0; i < 3 * n; i++) out[i] = p[i];
    *error = err;
    return passes;
}

/* rows chains of n points each (rows * n * 3), targets (rows * 3), solved one after the
   other, reps times; ns[rep] the wall time of each repeat. */
void ik_fabrik_batch(int rows, int n, const double *pts, const double *targets, double tol, int cap,
                     double *out, int *iterations, double *errors, int reps, double *ns) {
    for (int r = 0; r < reps; r++) {
        double t0 = now_ns();
        for (int i = 0; i < rows; i++)
            iterations[i] = ik_fabrik(n, pts + (size_t)i * n * 3, targets + 3 * i, tol, cap, out + (size_t)i * n * 3, errors + i);
        ns[r] = now_ns() - t0;
    }
}

/* Single solves timed in groups: the rows in groups of `group` (the last may be short),
   each group's solves timed together, every group once a repeat; ns[rep * groups + g].
   A group lasts microseconds, far below a scheduler time slice, so the median over repeats
   of a group's time leaves out the repeats where other work took the core. */
void ik_fabrik_grouped(int rows, int n, const double *pts, const double *targets, double tol, int cap,
                       double *out, int *iterations, double *errors, int group, int reps, double *ns) {
    int groups = (rows + group - 1) / group;
    for (int r = 0; r < reps; r++) {
        for (int g = 0; g < groups; g++) {
            int hi = (g + 1) * group < rows ? (g + 1) * group : rows;
            double t0 = now_ns();
            for (int i = g * group; i < hi; i++)
                iterations[i] = ik_fabrik(n, pts + (size_t)i * n * 3, targets + 3 * i, tol, cap, out + (size_t)i * n * 3, errors + i);
            ns[(size_t)r * groups + g] = now_ns() - t0;
        }
    }
}

/* A unit vector perpendicular to u: u x the world axis u is least aligned with. */
static void perpendicular(double ux, double uy, double uz, double *v) {
    double ax = fabs(ux), ay = fabs(uy), az = fabs(uz), qx, qy, qz;
    if (ax <= ay && ax <= az) qx = 0.0, qy = uz, qz = -uy;
    else if (ay <= az) qx = -uz, qy = 0.0, qz = ux;
    else qx = uy, qy = -ux, qz = 0.0;
    double qn = sqrt(qx * qx + qy * qy + qz * qz);
    v[0] = qx / qn, v[1] = qy / qn, v[2] = qz / qn;
}

/* One limb: root r, mid m, end e, target t, pole p (NULL for none). Returns reached. */
int ik_two_bone(const double *r, const double *m, const double *e, const double *t, const double *p, double *mid, double *end) {
    double rx = r[0], ry = r[1], rz = r[2];
    double wx = m[0] - rx, wy = m[1] - ry, wz = m[2] - rz;     /* upper bone */
    double bx = e[0] - m[0], by = e[1] - m[1], bz = e[2] - m[2]; /* lower bone */
    double tx = t[0] - rx, ty = t[1] - ry, tz = t[2] - rz;     /* root -> target */
    double a = sqrt(wx * wx + wy * wy + wz * wz);
    double b = sqrt(bx * bx + by * by + bz * bz);
    double d = sqrt(tx * tx + ty * ty + tz * tz);
    double hi = a + b, lo = a >= b ? a - b : b - a;
    int reached = lo <= d && d <= hi;
    double ux, uy, uz, v[3];
    if (d > 0.0) {
        double inv = 1.0 / d;
        ux = tx * inv, uy = ty * inv, uz = tz * inv;
    } else {
        ux = 1.0, uy = 0.0, uz = 0.0;
    }
    int have_v = 0;
    if (p != NULL) {
        double px = p[0] - rx, py = p[1] - ry, pz = p[2] - rz;
        double pu = px * ux + py * uy + pz * uz;
        double qx = px - pu * ux, qy = py - pu * uy, qz = pz - pu * uz;
        double qn = sqrt(qx * qx + qy * qy + qz * qz);
        if (qn > ON_LINE * sqrt(px * px + py * py + pz * pz)) {
            double inv = 1.0 / qn;
            v[0] = qx * inv, v[1] = qy * inv, v[2] = qz * inv;
            have_v = 1;
        }
    }
    if (!have_v) { /* keep the bend plane: u x (w x b) */
        double nx = wy * bz - wz * by, ny = wz * bx - wx * bz, nz = wx * by - wy * bx;
        double sx = uy * nz - uz * ny, sy = uz * nx - ux * nz, sz = ux * ny - uy * nx;
        double sn = sqrt(sx * sx + sy * sy + sz * sz);
        if (sn > ON_LINE * a * b) {
            double inv = 1.0 / sn;
            v[0] = sx * inv, v[1] = sy * inv, v[2] = sz * inv;
        } else {
            perpendicular(ux, uy, uz, v);
        }
    }
    double dc, mu, mv;
    if (d >= hi) {
        dc = hi, mu = a, mv = 0.0;
    } else if (d <= lo) {
        dc = lo, mv = 0.0, mu = a >= b ? a : -a;
    } else { /* the triangle: law of cosines along u, Heron's height along v */
        dc = d;
        double h = 0.5 / dc;
        mu = ((a - b) * hi + dc * dc) * h;
        mv = sqrt((hi - dc) * (dc - lo) * (hi + dc) * (dc + lo)) * h;
    }
    if (dc == 0.0) mu = 0.0, mv = a;
    mid[0] = rx + mu * ux + mv * v[0], mid[1] = ry + mu * uy + mv * v[1], mid[2] = rz + mu * uz + mv * v[2];
    end[0] = rx + dc * ux, end[1] = ry + dc * uy, end[2] = rz + dc * uz;
    return reached;
}

/* rows limbs, each argument (rows * 3); pole NULL for none. */
void ik_two_bone_batch(int rows, const double *R, const double *M, const double *E, const double *T, const double *P,
                       double *mid, double *end, unsigned char *reached, int reps, double *ns) {
    for (int r = 0; r < reps; r++) {
        double t0 = now_ns();
        for (int i = 0; i < rows; i++)
            reached[i] = (unsigned char)ik_two_bone(R + 3 * i, M + 3 * i, E + 3 * i, T + 3 * i, P ? P + 3 * i : NULL, mid + 3 * i, end + 3 * i);
        ns[r] = now_ns() - t0;
    }
}

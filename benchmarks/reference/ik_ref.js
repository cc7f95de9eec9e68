// Reference builds of plain FABRIK and two-bone IK in JavaScript, for
// benchmarks/bench_reference.py: `node ik_ref.js INPUT.json` prints JSON on stdout.
//
// The input holds the benchmark's chains and limbs (the same numbers rigedit solves; JSON
// carries float64 exactly), the tolerance, the pass cap and how many timed repeats to run.
// Each repeat solves every row once, one single-chain call after another, timed with
// process.hrtime.bigint in groups of a few rows (ns[rep][group]: see timed()); the first
// repeats warm V8's JIT up and are not reported. The results are printed too, so the benchmark can check they are rigedit's.
//
// The arithmetic is rigedit's (fabrik.py, two_bone.py) and ik_ref.c's: see ik_ref.c for
// what each solve does and where it stops.
"use strict";

const fs = require("fs");

const TINY = 1e-12;
const STALL_RELATIVE = 1e-9;
const ON_LINE = 1e-9;

// Scratch for one chain, grown as needed: a plain FABRIK allocates nothing per solve.
let ls = new Float64Array(16), dirs = new Float64Array(48), p = new Float64Array(48), q = new Float64Array(48), np_ = new Float64Array(48);

function scratch(n) {
  if (ls.length < n) {
    ls = new Float64Array(n); dirs = new Float64Array(3 * n);
    p = new Float64Array(3 * n); q = new Float64Array(3 * n); np_ = new Float64Array(3 * n);
  }
}

// One chain: n points at pts[off .. off + 3n), target (tx, ty, tz); the result written to
// out[off ..], the tip error to errs[row]. Returns the passes run.
function fabrik(pts, off, n, tx, ty, tz, tol, cap, out, errs, row) {
  scratch(n);
  const rx = pts[off], ry = pts[off + 1], rz = pts[off + 2];
  let total = 0.0;
  for (let k = 0; k < n - 1; k++) {
    const i = off + 3 * k;
    const dx = pts[i + 3] - pts[i], dy = pts[i + 4] - pts[i + 1], dz = pts[i + 5] - pts[i + 2];
    const l = Math.sqrt(dx * dx + dy * dy + dz * dz);
    ls[k] = l;
    total += l;
    if (l > TINY) { dirs[3 * k] = dx / l; dirs[3 * k + 1] = dy / l; dirs[3 * k + 2] = dz / l; }
    else { dirs[3 * k] = 0.0; dirs[3 * k + 1] = 1.0; dirs[3 * k + 2] = 0.0; }
  }
  let ux = tx - rx, uy = ty - ry, uz = tz - rz;
  const reach = Math.sqrt(ux * ux + uy * uy + uz * uz);
  if (reach > total) {
    ux /= reach; uy /= reach; uz /= reach;
    let x = rx, y = ry, z = rz;
    out[off] = x; out[off + 1] = y; out[off + 2] = z;
    for (let k = 0; k < n - 1; k++) {
      x += ls[k] * ux; y += ls[k] * uy; z += ls[k] * uz;
      out[off + 3 * k + 3] = x; out[off + 3 * k + 4] = y; out[off + 3 * k + 5] = z;
    }
    const ex = x - tx, ey = y - ty, ez = z - tz;
    errs[row] = Math.sqrt(ex * ex + ey * ey + ez * ez);
    return 0;
  }
  for (let i = 0; i < 3 * n; i++) p[i] = pts[off + i];
  const t = 3 * (n - 1);
  let ex = p[t] - tx, ey = p[t + 1] - ty, ez = p[t + 2] - tz;
  let err = Math.sqrt(ex * ex + ey * ey + ez * ez);
  const minGain = STALL_RELATIVE * total;
  let passes = 0;
  while (err > tol && passes < cap) {
    let x1 = tx, y1 = ty, z1 = tz;
    q[t] = x1; q[t + 1] = y1; q[t + 2] = z1;
    for (let k = n - 2; k >= 1; k--) {
      const dx = p[3 * k] - x1, dy = p[3 * k + 1] - y1, dz = p[3 * k + 2] - z1;
      const d = Math.sqrt(dx * dx + dy * dy + dz * dz), l = ls[k];
      if (d > TINY) { const s = l / d; x1 += dx * s; y1 += dy * s; z1 += dz * s; }
      else { x1 -= l * dirs[3 * k]; y1 -= l * dirs[3 * k + 1]; z1 -= l * dirs[3 * k + 2]; }
      q[3 * k] = x1; q[3 * k + 1] = y1; q[3 * k + 2] = z1;
    }
    let x0 = rx, y0 = ry, z0 = rz;
    np_[0] = x0; np_[1] = y0; np_[2] = z0;
    for (let k = 0; k < n - 1; k++) {
      const dx = q[3 * k + 3] - x0, dy = q[3 * k + 4] - y0, dz = q[3 * k + 5] - z0;
      const d = Math.sqrt(dx * dx + dy * dy + dz * dz), l = ls[k];
      if (d > TINY) { const s = l / d; x0 += dx * s; y0 += dy * s; z0 += dz * s; }
      else { x0 += l * dirs[3 * k]; y0 += l * dirs[3 * k + 1]; z0 += l * dirs[3 * k + 2]; }
      np_[3 * k + 3] = x0; np_[3 * k + 4] = y0; np_[3 * k + 5] = z0;
    }
    ex = x0 - tx; ey = y0 - ty; ez = z0 - tz;
    const newErr = Math.sqrt(ex * ex + ey * ey + ez * ez);
    passes++;
    if (newErr > err) break; // dropped: the tip error never grows
    const gain = err - newErr;
    const swap = p; p = np_; np_ = swap;
    err = newErr;
    if (gain <= minGain) break;
  }
  for (let i = 0; i < 3 * n; i++) out[off + i] = p[i];
  errs[row] = err;
  return passes;
}

const bend = new Float64Array(3);

function perpendicular(ux, uy, uz) {
  const ax = Math.abs(ux), ay = Math.abs(uy), az = Math.abs(uz);
  let qx, qy, qz;
  if (ax <= ay && ax <= az) { qx = 0.0; qy = uz; qz = -uy; }
  else if (ay <= az) { qx = -uz; qy = 0.0; qz = ux; }
  else { qx = uy; qy = -ux; qz = 0.0; }
  const qn = Math.sqrt(qx * qx + qy * qy + qz * qz);
  bend[0] = qx / qn; bend[1] = qy / qn; bend[2] = qz / qn;
}

// One limb, row i of the flat (rows * 3) arrays R, M, E, T, P (P null for no pole).
function twoBone(R, M, E, T, P, i, mid, end, reached) {
  const o = 3 * i;
  const rx = R[o], ry = R[o + 1], rz = R[o + 2];
  const wx = M[o] - rx, wy = M[o + 1] - ry, wz = M[o + 2] - rz;
  const bx = E[o] - M[o], by = E[o + 1] - M[o + 1], bz = E[o + 2] - M[o + 2];
  const tx = T[o] - rx, ty = T[o + 1] - ry, tz = T[o + 2] - rz;
  const a = Math.sqrt(wx * wx + wy * wy + wz * wz);
  const b = Math.sqrt(bx * bx + by * by + bz * bz);
  const d = Math.sqrt(tx * tx + ty * ty + tz * tz);
  const hi = a + b, lo = a >= b ? a - b : b - a;
  reached[i] = lo <= d && d <= hi ? 1 : 0;
  let ux = 1.0, uy = 0.0, uz = 0.0;
  if (d > 0.0) { const inv = 1.0 / d; ux = tx * inv; uy = ty * inv; uz = tz * inv; }
  let haveV = false;
  if (P !== null) {
    const px = P[o] - rx, py = P[o + 1] - ry, pz = P[o + 2] - rz;
    const pu = px * ux + py * uy + pz * uz;
    const qx = px - pu * ux, qy = py - pu * uy, qz = pz - pu * uz;
    const qn = Math.sqrt(qx * qx + qy * qy + qz * qz);
    if (qn > ON_LINE * Math.sqrt(px * px + py * py + pz * pz)) {
      const inv = 1.0 / qn;
      bend[0] = qx * inv; bend[1] = qy * inv; bend[2] = qz * inv;
      haveV = true;
    }
  }
  if (!haveV) {
    const nx = wy * bz - wz * by, ny = wz * bx - wx * bz, nz = wx * by - wy * bx;
    const sx = uy * nz - uz * ny, sy = uz * nx - ux * nz, sz = ux * ny - uy * nx;
    const sn = Math.sqrt(sx * sx + sy * sy + sz * sz);
    if (sn > ON_LINE * a * b) { const inv = 1.0 / sn; bend[0] = sx * inv; bend[1] = sy * inv; bend[2] = sz * inv; }
    else perpendicular(ux, uy, uz);
  }
  let dc, mu, mv;
  if (d >= hi) { dc = hi; mu = a; mv = 0.0; }
  else if (d <= lo) { dc = lo; mv = 0.0; mu = a >= b ? a : -a; }
  else {
    dc = d;
    const h = 0.5 / dc;
    mu = ((a - b) * hi + dc * dc) * h;
    mv = Math.sqrt((hi - dc) * (dc - lo) * (hi + dc) * (dc + lo)) * h;
  }
  if (dc === 0.0) { mu = 0.0; mv = a; }
  mid[o] = rx + mu * ux + mv * bend[0]; mid[o + 1] = ry + mu * uy + mv * bend[1]; mid[o + 2] = rz + mu * uz + mv * bend[2];
  end[o] = rx + dc * ux; end[o + 1] = ry + dc * uy; end[o + 2] = rz + dc * uz;
}

// solve(i) for every row, the rows in groups of `group`, each group timed as a whole, every
// group once a repeat: ns[rep][g]. The first `warmup` repeats (V8 compiling) are dropped.
function timed(rows, group, reps, warmup, solve) {
  const ns = [];
  for (let r = 0; r < warmup + reps; r++) {
    const times = [];
    for (let g = 0; g * group < rows; g++) {
      const hi = Math.min(rows, (g + 1) * group);
      const t0 = process.hrtime.bigint();
      for (let i = g * group; i < hi; i++) solve(i);
      times.push(Number(process.hrtime.bigint() - t0));
    }
    if (r >= warmup) ns.push(times);
  }
  return ns;
}

function main() {
  const input = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
  const result = {};
  if (input.fabrik) {
    const f = input.fabrik;
    const pts = Float64Array.from(f.points), tg = Float64Array.from(f.targets);
    const rows = f.rows, n = f.joints;
    const out = new Float64Array(rows * n * 3), errs = new Float64Array(rows), iters = new Int32Array(rows);
    const solve = (i) => {
      iters[i] = fabrik(pts, i * n * 3, n, tg[3 * i], tg[3 * i + 1], tg[3 * i + 2], f.tolerance, f.max_iterations, out, errs, i);
    };
    const ns = timed(rows, f.group, f.reps, f.warmup, solve);
    result.fabrik = { ns: ns, points: Array.from(out), iterations: Array.from(iters), error: Array.from(errs) };
  }
  if (input.two_bone) {
    const t = input.two_bone;
    const R = Float64Array.from(t.root), M = Float64Array.from(t.mid), E = Float64Array.from(t.end), T = Float64Array.from(t.target);
    const P = t.pole ? Float64Array.from(t.pole) : null;
    const rows = t.rows;
    const mid = new Float64Array(rows * 3), end = new Float64Array(rows * 3), reached = new Uint8Array(rows);
    const ns = timed(rows, t.group, t.reps, t.warmup, (i) => twoBone(R, M, E, T, P, i, mid, end, reached));
    result.two_bone = { ns: ns, mid: Array.from(mid), end: Array.from(end), reached: Array.from(reached) };
  }
  process.stdout.write(JSON.stringify(result));
}

main();

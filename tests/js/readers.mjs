// Read rigedit's exports back the way other tools do, and print what they see as JSON.
//
//   node readers.mjs validate FILE.glb|.gltf        the Khronos glTF validator's report
//   node readers.mjs gltf FILE.glb|.gltf ANIMATION  three.js GLTFLoader + AnimationMixer: every node's
//                                                   world position at each key time of ANIMATION
//   node readers.mjs skin FILE.glb ANIMATION F,F,..  three.js's skinning (SkinnedMesh.applyBoneTransform):
//                                                   every skinned vertex's world position at those frames
//   node readers.mjs bvh FILE.bvh                   three.js BVHLoader + AnimationMixer: every bone's
//                                                   world position at each frame
//   node readers.mjs batch JOBS.json                many of the above in one process (node and three.js
//                                                   start once): JOBS is a list of {mode: validate|gltf|bvh,
//                                                   file, animation, frames (optional: key indices to
//                                                   read at, default all)}; prints a list of the results,
//                                                   {error} for a job that failed
//
// The packages come from the directory in RIGEDIT_JS_MODULES (a cache outside the repository
// that the tests install package.json's pinned versions into), so nothing is installed here.
// Images are dropped before GLTFLoader sees the file: decoding them needs a DOM, and poses
// do not depend on them.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const modules = process.env.RIGEDIT_JS_MODULES;
if (!modules) throw new Error('RIGEDIT_JS_MODULES is not set');
const load = (p) => import(pathToFileURL(join(modules, 'node_modules', p)).href);

const [mode, file, arg] = process.argv.slice(2);

function readGlb(bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let offset = 12, json = null, bin = null;
  while (offset < bytes.byteLength) {
    const length = view.getUint32(offset, true);
    const type = view.getUint32(offset + 4, true);
    const chunk = bytes.subarray(offset + 8, offset + 8 + length);
    if (type === 0x4e4f534a) json = JSON.parse(new TextDecoder().decode(chunk));
    else if (type === 0x004e4942) bin = chunk;
    offset += 8 + length;
  }
  return { json, bin };
}

function withoutImages(bytes, isGlb) {
  let json, bin;
  if (isGlb) ({ json, bin } = readGlb(bytes));
  else {
    json = JSON.parse(new TextDecoder().decode(bytes));
    const uri = json.buffers?.[0]?.uri;
    bin = uri ? Buffer.from(uri.split(',')[1], 'base64') : null;
    if (json.buffers?.length) delete json.buffers[0].uri;
  }
  delete json.images; delete json.textures; delete json.samplers;
  for (const m of json.materials ?? []) {
    delete m.extensions;
    for (const k of ['normalTexture', 'occlusionTexture', 'emissiveTexture']) delete m[k];
    if (m.pbrMetallicRoughness) {
      delete m.pbrMetallicRoughness.baseColorTexture;
      delete m.pbrMetallicRoughness.metallicRoughnessTexture;
    }
  }
  const js = new TextEncoder().encode(JSON.stringify(json));
  const jsLen = Math.ceil(js.length / 4) * 4;
  const binLen = bin ? Math.ceil(bin.length / 4) * 4 : 0;
  const total = 12 + 8 + jsLen + (bin ? 8 + binLen : 0);
  const out = new Uint8Array(total);
  const v = new DataView(out.buffer);
  v.setUint32(0, 0x46546c67, true); v.setUint32(4, 2, true); v.setUint32(8, total, true);
  v.setUint32(12, jsLen, true); v.setUint32(16, 0x4e4f534a, true);
  out.fill(0x20, 20, 20 + jsLen); out.set(js, 20);
  if (bin) {
    const at = 20 + jsLen;
    v.setUint32(at, binLen, true); v.setUint32(at + 4, 0x004e4942, true);
    out.set(bin, at + 8);
  }
  return out.buffer;
}

// Once, held at the end: a looping action wraps the last key's time back to the first frame.
function play(THREE, mixer, clip) {
  const action = mixer.clipAction(clip);
  action.setLoop(THREE.LoopOnce, 1);
  action.clampWhenFinished = true;
  action.play();
  return action;
}

async function validate(file) {
  const validator = await load('gltf-validator/index.js');
  const bytes = new Uint8Array(readFileSync(file));
  const report = await validator.validateBytes(bytes, { uri: file, maxIssues: 50 });
  const issues = report.issues;
  return {
    numErrors: issues.numErrors, numWarnings: issues.numWarnings,
    errors: issues.messages.filter((m) => m.severity === 0),
    warnings: issues.messages.filter((m) => m.severity === 1),
  };
}

// Each of `frames` (key indices, any order; default every key): a paused action is reset
// first, as setTime alone would hold one that has run to its end at time 0.
function* visit(mixer, action, times, frames) {
  for (const f of frames ?? times.map((_, k) => k)) {
    if (times[f] === undefined) throw new Error(`no frame ${f}: the clip has ${times.length}`);
    action.reset();
    mixer.setTime(times[f]);
    yield f;
  }
}

async function gltf(file, animation, frames) {
  const THREE = await load('three/build/three.module.js');
  const { GLTFLoader } = await load('three/examples/jsm/loaders/GLTFLoader.js');
  const bytes = new Uint8Array(readFileSync(file));
  const data = withoutImages(bytes, file.toLowerCase().endsWith('.glb'));
  const result = await new Promise((resolve, reject) => new GLTFLoader().parse(data, '', resolve, reject));
  const clip = result.animations.find((a) => a.name === animation);
  if (!clip) throw new Error(`no animation ${animation}; the file has ${result.animations.map((a) => a.name)}`);
  const scene = result.scene;
  const mixer = new THREE.AnimationMixer(scene);
  const action = play(THREE, mixer, clip);
  const nodes = [];
  scene.traverse((o) => {
    const a = result.parser.associations.get(o);
    if (a && a.nodes !== undefined) nodes.push([a.nodes, o]);
  });
  const times = Array.from(clip.tracks[0].times);
  const out = {};
  for (const [index] of nodes) out[index] = [];
  const p = new THREE.Vector3();
  for (const _ of visit(mixer, action, times, frames)) {
    scene.updateMatrixWorld(true);
    for (const [index, o] of nodes) out[index].push(o.getWorldPosition(p).toArray());
  }
  return { times, frames: frames ?? times.map((_, k) => k), nodes: out };
}

async function skin(file, arg) {
  const THREE = await load('three/build/three.module.js');
  const { GLTFLoader } = await load('three/examples/jsm/loaders/GLTFLoader.js');
  const bytes = new Uint8Array(readFileSync(file));
  const data = withoutImages(bytes, file.toLowerCase().endsWith('.glb'));
  const result = await new Promise((resolve, reject) => new GLTFLoader().parse(data, '', resolve, reject));
  const clip = result.animations.find((a) => a.name === arg);
  const frames = process.argv[5].split(',').map(Number);
  const scene = result.scene;
  const mixer = new THREE.AnimationMixer(scene);
  const action = play(THREE, mixer, clip);
  const meshes = [];
  scene.traverse((o) => {
    const a = result.parser.associations.get(o);
    if (o.isSkinnedMesh && a) meshes.push([`${a.meshes}:${a.primitives}`, o]);
  });
  const times = clip.tracks[0].times;
  const out = {};
  const v = new THREE.Vector3();
  for (const [key] of meshes) out[key] = [];
  for (const f of frames) {
    // Frames come in any order, and may repeat the last one: once the action has run to its
    // end it is paused there, and setTime alone would then hold it at time 0.
    if (times[f] === undefined) throw new Error(`no frame ${f}: the clip has ${times.length}`);
    action.reset();
    mixer.setTime(times[f]);
    scene.updateMatrixWorld(true);
    for (const [key, mesh] of meshes) {
      const count = mesh.geometry.attributes.position.count;
      const flat = new Array(count * 3);
      for (let i = 0; i < count; i++) {
        v.fromBufferAttribute(mesh.geometry.attributes.position, i);
        mesh.applyBoneTransform(i, v);
        v.applyMatrix4(mesh.matrixWorld);
        flat[3 * i] = v.x; flat[3 * i + 1] = v.y; flat[3 * i + 2] = v.z;
      }
      out[key].push(flat);
    }
  }
  return { frames, meshes: out };
}

async function bvh(file, frames) {
  const THREE = await load('three/build/three.module.js');
  const { BVHLoader } = await load('three/examples/jsm/loaders/BVHLoader.js');
  const result = new BVHLoader().parse(readFileSync(file, 'utf8'));
  const bones = result.skeleton.bones;
  const root = new THREE.Group();
  root.add(bones[0]);
  const mixer = new THREE.AnimationMixer(root);
  const action = play(THREE, mixer, result.clip);
  const times = Array.from(result.clip.tracks[0].times);
  const names = bones.map((b) => b.name);
  const positions = [];
  const p = new THREE.Vector3();
  for (const _ of visit(mixer, action, times, frames)) {
    root.updateMatrixWorld(true);
    positions.push(bones.map((b) => b.getWorldPosition(p).toArray()));
  }
  return { times, names, frames: positions, at: frames ?? times.map((_, k) => k) };
}

async function batch(jobsFile) {
  const out = [];
  for (const job of JSON.parse(readFileSync(jobsFile, 'utf8'))) {
    try {
      if (job.mode === 'validate') out.push(await validate(job.file));
      else if (job.mode === 'gltf') out.push(await gltf(job.file, job.animation, job.frames));
      else if (job.mode === 'bvh') out.push(await bvh(job.file, job.frames));
      else throw new Error(`unknown mode ${job.mode}`);
    } catch (e) {
      out.push({ error: `${job.file}: ${e.stack ?? e}` });
    }
  }
  return out;
}

const modes = {
  validate: () => validate(file), gltf: () => gltf(file, arg), skin: () => skin(file, arg),
  bvh: () => bvh(file), batch: () => batch(file),
};
console.log(JSON.stringify(await modes[mode]()));

"""Shader programs for the viewport, made once a process: a headlight for the bones and
handles, the same light per vertex for skinned meshes, and (through `program`) the ground's.

pyqtgraph's 'shaded' program lights from behind-right of the camera, which leaves the faces
turned toward the viewer darkest. A light at the eye, seen on both sides of a face, keeps
every visible face readable however the camera orbits.
"""
from __future__ import annotations

from pyqtgraph.opengl import shaders

_VERTEX = """
uniform mat4 u_mvp;
uniform mat3 u_normal;
attribute vec4 a_position;
attribute vec3 a_normal;
attribute vec4 a_color;
varying vec4 v_color;
varying vec3 v_normal;
void main() {
    v_normal = u_normal * a_normal;
    v_color = a_color;
    gl_Position = u_mvp * a_position;
}
"""

_FRAGMENT = """
#ifdef GL_ES
precision mediump float;
#endif
varying vec4 v_color;
varying vec3 v_normal;
void main() {
    float len = length(v_normal);
    vec3 n = len > 0.0 ? v_normal / len : vec3(0.0, 0.0, 1.0);
    float p = abs(dot(n, normalize(vec3(0.35, 0.45, 1.0))));
    gl_FragColor = vec4(v_color.rgb * (0.38 + 0.62 * p), v_color.a);
}
"""

_programs: dict[str, object] = {}  # made once a process: pyqtgraph caches them per context


def program(name: str, vertex: str, fragment: str):
    """The shader program of this name, built from these sources the first time."""
    if name not in _programs:
        _programs[name] = shaders.ShaderProgram(name, [shaders.VertexShader(vertex), shaders.FragmentShader(fragment)])
    return _programs[name]


def headlight():
    return program("rigedit_headlight", _VERTEX, _FRAGMENT)


# The same light, worked out per vertex (Gouraud) for the skinned mesh: a character fills far
# more of the view than the bones, and under a software GL (llvmpipe) the per-pixel normalise
# and dot product are what such a fill costs (RobotExpressive at 1280x800: ~14.5 ms of CPU a
# frame lit per pixel, ~12.5 per vertex, ~10 for bones alone). Its vertices are dense enough
# that it looks the same.
_VERTEX_LIT = """
uniform mat4 u_mvp;
uniform mat3 u_normal;
attribute vec4 a_position;
attribute vec3 a_normal;
attribute vec4 a_color;
varying vec4 v_color;
void main() {
    vec3 n = u_normal * a_normal;
    float len = length(n);
    float p = len > 0.0 ? abs(dot(n / len, normalize(vec3(0.35, 0.45, 1.0)))) : 1.0;
    v_color = vec4(a_color.rgb * (0.38 + 0.62 * p), a_color.a);
    gl_Position = u_mvp * a_position;
}
"""

_FLAT = """
#ifdef GL_ES
precision mediump float;
#endif
varying vec4 v_color;
void main() {
    gl_FragColor = v_color;
}
"""


def vertex_lit():
    return program("rigedit_vertex_lit", _VERTEX_LIT, _FLAT)

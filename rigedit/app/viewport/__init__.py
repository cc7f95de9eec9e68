"""The 3D viewport: camera math, skeleton drawing, handles, overlays, the GL window."""
from .gizmos import Handle
from .view import Viewport

__all__ = ["Viewport", "Handle"]

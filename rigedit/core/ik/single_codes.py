"""What single_kernel.solve_chain returns when it refuses its input, shared by the kernel and
limit_args.refuse (which names the problem) without either importing the other: fabrik_kernel's
first four, then what is wrong with the limits' frames or axes."""
from __future__ import annotations

OK, BAD_POINTS, BAD_TARGET, BAD_SHAPE = 0, 1, 2, 3
BAD_ROOT_DIR, ZERO_ROOT_DIR, BAD_ROOT_FRAME, ZERO_ROOT_FRAME, BAD_FRAMES, ZERO_FRAME, PARALLEL_HINGE = 4, 5, 6, 7, 8, 9, 10

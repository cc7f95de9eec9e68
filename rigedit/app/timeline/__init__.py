"""Parts of the timeline dock (rigedit/app/timeline_dock.py): the plot, undo commands, playback."""

"""Widgets: heatmap, colour legend, plots, readout, parameter controls, scene bar."""

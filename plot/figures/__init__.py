"""One module per figure of plot.py; each draws its figure with style.save, or says why not."""

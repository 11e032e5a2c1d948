"""Loss and data: what the loss functions are given and the module tree, recorded for the GD5xx judges.

The entry points they listen at (patches) and the loss calls they read (calls); the
observer that feeds the judges is observers/lossdata.py, and each code's judge lives
with its rule (`rules/data/gd50N_*/judge.py`).
"""

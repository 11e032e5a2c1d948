"""The observers: they follow a session's events and call the rules' judges.

Engines (graph/, loop/, lossdata/, numerics/, provenance/, distributed/) measure and
record; the judges (`rules/<family>/gdNNN_*/judge.py`) decide; the modules here wire the
two together, so that no engine imports a judge and no judge imports an observer.
"""

"""Consumers of Findings: the Report object and its JSON, terminal and HTML renderings."""

"""Scenario files: reading and validating them (loader), the validated model
every command shares (model), and the work estimate a run is checked
against before it starts (bounds).
"""

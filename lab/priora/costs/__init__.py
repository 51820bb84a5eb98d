"""The cost model: what a kernel operation costs in time on a target, given or
measured (model; the measured figures are measured_costs.json).
"""

"""What people look at: the Gantt chart (gantt_model plans it, gantt draws
it) and the one-page HTML report (html_report).
"""

"""Pytrees Hands-On's grader: runs each exercise's tests against a learner's notebook.

The learner's code runs in a separate, limited worker process; this package's own
process only compares plain data that the worker sends back.
"""

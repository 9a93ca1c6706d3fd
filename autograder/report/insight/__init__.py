"""A class at a glance: what a class's report says of the class as a whole.

``stats`` computes the numbers (what to reteach, each function's outcomes and
discrimination, hints against passing, scores), ``charts`` draws them as SVG and
``page`` writes the self-contained HTML page ``insight`` and ``grade --html`` make.
"""

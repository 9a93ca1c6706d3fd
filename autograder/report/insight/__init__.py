"""A class at a glance: what a class's report says of the class as a whole.

``stats`` computes the numbers (what to reteach, each function's outcomes and
discrimination, hints against passing, scores), ``charts`` draws them as SVG,
``page`` makes the self-contained HTML page of them, and ``command`` writes it, for
``insight`` and for ``--html`` of ``grade`` and ``merge``.
"""

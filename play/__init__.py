"""The play pipeline: the one path that changes a round (a person's move, the bots on turn, the turn
clock), the tables and rounds it plays at, and the tasks that keep it moving.

It stands above the stored game (:mod:`games`) and the consumers of a move (:mod:`scoring`,
:mod:`streams`): it applies an action with the engine, asks each consumer what the move means to it,
and writes all of that in the move's transaction.
"""

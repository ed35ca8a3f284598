"""Datasets of a problem family (``maxwell-family``): the generator and the file's ``family/``
group."""

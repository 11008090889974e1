"""Shims that let the tests, written for older libraries, run on current ones."""

import unittest

import moto

# moto 5 folded mock_s3 and the other per-service decorators into mock_aws.
if not hasattr(moto, "mock_s3"):
    moto.mock_s3 = moto.mock_aws  # type: ignore[attr-defined]

# Python 3.12 removed TestCase's deprecated aliases; the tests still call assertEquals.
if not hasattr(unittest.TestCase, "assertEquals"):
    unittest.TestCase.assertEquals = unittest.TestCase.assertEqual  # type: ignore[attr-defined]

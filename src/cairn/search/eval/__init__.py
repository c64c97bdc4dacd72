"""Evaluation built into the product: mine cases from git history, measure search against them."""

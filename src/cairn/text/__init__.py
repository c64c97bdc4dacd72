"""Text helpers every layer shares: code-aware tokens, token estimates, stop words, front matter."""

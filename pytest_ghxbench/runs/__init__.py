"""A run as a whole (SPEC section 17): its plan, shards, resume, merge, integrity seal and
completeness."""

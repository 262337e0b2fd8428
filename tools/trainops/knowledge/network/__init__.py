"""What the pods of an environment need to reach, and what its NetworkPolicies let through."""

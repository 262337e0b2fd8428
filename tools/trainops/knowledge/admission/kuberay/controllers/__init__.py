"""KubeRay v1.2.2 ray-operator/controllers/ray: the checks its controllers make before acting."""

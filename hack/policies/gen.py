#!/usr/bin/env python3
"""Writes N ValidatingAdmissionPolicies and bindings, 3 of which match
ConfigMaps (the rest match Secrets), for the admission load benchmark in
docs/performance.md: python3 hack/policies/gen.py 1024 > policies.yaml"""
import sys

n = int(sys.argv[1])
for i in range(n):
    res = "configmaps" if i < 3 else "secrets"
    print(f"""apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: p{i}
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: ["v1"]
      operations: ["CREATE", "UPDATE"]
      resources: ["{res}"]
  validations:
  - expression: "!has(object.metadata.labels) || !('forbidden' in object.metadata.labels)"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: b{i}
spec:
  policyName: p{i}
  validationActions: [Deny]
---""")

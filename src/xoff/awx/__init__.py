"""The Ansible path at scale: one Ansible inventory per failure domain (``--shard-by pod|su|plane``) and
the AWX / Ansible Automation Platform project that runs each as its own job.

``xoff inventory export INTENT -o DIR --shard-by pod`` writes an AWX project (a directory to commit to the
repository AWX syncs): the playbooks, the rendered configuration, ``inventories/<shard>/hosts.yml``,
``collections/requirements.yml``, an ansible-builder (version 3) ``execution-environment.yml`` and
``awx/controller.yml``, the job templates as an ``awx.awx`` collection playbook. No secret in any file.
``docs/scale-out.md`` says how to run it.
"""

"""The lab's self-signed gNMI server certificate (Cumulus Linux serves gNMI over TLS with a self-signed
certificate unless one is imported): one key pair per lab, made once, under ``<lab dir>/gnmi-tls/``."""

from __future__ import annotations

import datetime
import ipaddress
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

NAME = "xoff-lab-gnmi"


def ensure(directory: Path) -> Path:
    """``directory`` with ``server.key`` and ``server.crt`` (made if missing); the key readable by root only."""
    key_file, cert_file = directory / "server.key", directory / "server.crt"
    if key_file.exists() and cert_file.exists():
        return directory
    directory.mkdir(parents=True, exist_ok=True)
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, NAME)])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=365))
        .add_extension(
            x509.SubjectAlternativeName([x509.DNSName(NAME), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .sign(key, hashes.SHA256())
    )
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    key_file.touch(mode=0o600)
    key_file.write_bytes(pem)
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    return directory

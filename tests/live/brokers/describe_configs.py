#!/usr/bin/env python3
"""What confluent_kafka's AdminClient says of topics' and brokers' configurations: the oracle of
the client's configs. Used by tests/live/brokers.mjs (describeConfigs).

  python describe_configs.py SPEC_JSON   or   echo SPEC_JSON | python describe_configs.py
SPEC: {"bootstrap": "127.0.0.1:9092", "resources": [["topic", "t"], ["broker", "1"]], "config": {...}}

Stdout, one line: {"topic/t": {"retention.ms": {"value": "1000", "source": "DYNAMIC_TOPIC_CONFIG",
  "is_default": false, "is_sensitive": false, "is_read_only": false}, ...} | {"error": "..."}, ...}
On any other failure: exit 1 and one line "describe_configs.py: ..." on stderr.
"""
import json, logging, sys

from confluent_kafka.admin import AdminClient, ConfigResource, ConfigSource


def main():
    spec = json.loads(sys.argv[1] if len(sys.argv) > 1 else sys.stdin.read())
    log = logging.getLogger('describe_configs.py')
    log.addHandler(logging.NullHandler())
    log.propagate = False
    admin = AdminClient({'bootstrap.servers': spec['bootstrap'], 'logger': log, **spec.get('config', {})})
    out = {}
    for kind, name in spec['resources']:
        resource = ConfigResource(kind, name)
        try:
            entries = admin.describe_configs([resource], request_timeout=10)[resource].result()
            out[f'{kind}/{name}'] = {k: {'value': e.value, 'source': ConfigSource(e.source).name,
                                         'is_default': e.is_default, 'is_sensitive': e.is_sensitive,
                                         'is_read_only': e.is_read_only} for k, e in entries.items()}
        except Exception as e:
            out[f'{kind}/{name}'] = {'error': str(e.args[0]) if e.args else repr(e)}
    print(json.dumps(out))
    return 0


if __name__ == '__main__':
    try:
        sys.exit(main())
    except Exception as e:
        print(f'describe_configs.py: {type(e).__name__}: {e}'.replace('\n', ' '), file=sys.stderr)
        sys.exit(1)

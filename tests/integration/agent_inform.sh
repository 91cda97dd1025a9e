#!/bin/bash
# The same notifications as agent_trap.sh, with the master configured to send
# INFORMs (informsink): the subagent's notification reaches snmptrapd as an
# acknowledged INFORM.
SINK_TOKEN=informsink exec bash "$(dirname "$0")/agent_trap.sh"

import numpy as np
import shims

device = shims.runtime.Device('cuda', 0)
start = shims.streams.Event(enable_timing=True)
end = shims.streams.Event(enable_timing=True)
start.record(shims.streams.current_stream(device))
labels = shims.pin_memory(shims.from_numpy(np.zeros([4, 2], dtype=np.float32)))
end.record(shims.streams.current_stream(device))
end.synchronize()
print(start.elapsed_time(end))

import numpy as np
import torch

device = torch.device('cuda', 0)
start = torch.cuda.Event(enable_timing=True)
end = torch.cuda.Event(enable_timing=True)
start.record(torch.cuda.current_stream(device))
labels = torch.from_numpy(np.zeros([4, 2], dtype=np.float32)).pin_memory().to(device)
end.record(torch.cuda.current_stream(device))
end.synchronize()
print(start.elapsed_time(end))

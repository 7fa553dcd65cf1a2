<!DOCTYPE html>
<html><head><title>404 Not Found</title></head><body>Not Found</body></html>

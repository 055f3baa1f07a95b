# Regenerates the seed corpora of tests/fuzz/corpus (run from tests/fuzz with /usr/bin/python3;
# needs python3-numpy and python3-pil). The seeds are checked in; CI only reads them.
import struct, io, os
import numpy as np
from PIL import Image
C='corpus/'
def w(path, data):
    open(C+path,'wb').write(data if isinstance(data,bytes) else data.encode())
w('text/header.csv','x,y\n1,2\n3.5,-4e2\n+5,6\n')
w('text/id-column.csv','id,x,y,z\n1,0.1,0.2,0.3\n2,0.4,0.5,0.6\n')
w('text/pandas-index.csv',',a,b\n0,1,2\n1,3,4\n')
w('text/tabs.tsv','first name\tlast name\n1\t2\n3\t4\n')
w('text/whitespace.txt','0 1.5 2.5\n1 3.5 4.5\n2 5.5 6.5\n')
w('text/quoted.csv','"a, b","c ""q"""\n1,2\n# comment\n3,4 # trailing\n')
w('text/semicolon.csv','\ufeffx;y\n1;2\n3;4\n')
w('text/bad.csv','x,y\n1,nan\n1e39,2\n3\n')
w('text/crlf.csv','x,y\r\n1,2\r\n3,4\r\n')
def classic(n,d,vals): return struct.pack('<ii',n,d)+struct.pack('<%df'%len(vals),*vals)
w('binary/small.bin',classic(3,2,[0,1,2,3,4,5]))
w('binary/one.bin',classic(1,1,[7]))
w('binary/wrong-size.bin',classic(5,3,[1,2,3]))
w('binary/negative.bin',struct.pack('<ii',-1,4))
def npy(a, version=1):
    b=io.BytesIO()
    from numpy.lib import format as f
    f.write_array(b, a, version=(version,0))
    return b.getvalue()
w('npy/f32.npy',npy(np.arange(12,dtype='<f4').reshape(4,3)))
w('npy/f64.npy',npy(np.linspace(0,1,10).reshape(5,2)))
w('npy/i16be.npy',npy(np.arange(6,dtype='>i2').reshape(3,2)))
w('npy/u8-1d.npy',npy(np.arange(5,dtype='u1')))
w('npy/fortran.npy',npy(np.asfortranarray(np.arange(6,dtype='<f4').reshape(2,3))))
w('npy/v2.npy',npy(np.arange(4,dtype='<f4').reshape(2,2),version=2))
w('npy/bool.npy',npy(np.array([[True,False]])))
w('ply/ascii.ply','ply\nformat ascii 1.0\ncomment test\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\nproperty uchar red\nproperty uchar green\nproperty uchar blue\nelement face 1\nproperty list uchar int vertex_indices\nend_header\n0 0 0 255 0 0\n1 0 0 0 255 0\n0 1 0 0 0 255\n3 0 1 2\n')
hdr='ply\nformat binary_little_endian 1.0\nelement vertex 2\nproperty float x\nproperty float y\nproperty double z\nend_header\n'
w('ply/binary-le.ply',hdr.encode()+struct.pack('<ffdffd',1,2,3,4,5,6))
hdr='ply\nformat binary_big_endian 1.0\nelement face 1\nproperty list uchar int vertex_indices\nelement vertex 2\nproperty short x\nproperty int y\nend_header\n'
w('ply/binary-be-face-first.ply',hdr.encode()+struct.pack('>Biii',3,0,1,1)+struct.pack('>hihi',1,2,3,4))
def save(img, name, fmt, **kw):
    b=io.BytesIO(); img.save(b, fmt, **kw); w('image/'+name, b.getvalue())
rgb=Image.new('RGB',(4,3)); rgb.putdata([(i*20,255-i*20,i*7) for i in range(12)])
save(rgb,'rgb.png','PNG'); save(rgb,'rgb.jpg','JPEG',quality=80); save(rgb,'rgb.bmp','BMP'); save(rgb,'rgb.gif','GIF')
save(rgb,'rgb.tif','TIFF'); save(rgb,'rgb.webp','WEBP')
save(rgb.convert('P',palette=Image.ADAPTIVE,colors=4),'palette.png','PNG')
la=Image.new('LA',(3,3)); la.putdata([(i*30,i*25) for i in range(9)]); save(la,'grey-alpha.png','PNG')
rgba=rgb.convert('RGBA'); rgba.putpixel((0,0),(0,0,0,0)); rgba.putpixel((1,0),(9,9,9,128)); save(rgba,'alpha.png','PNG')
i16=Image.new('I;16',(3,2)); i16.putdata([0,1000,20000,40000,60000,65535]); save(i16,'grey16.png','PNG')
save(rgb.convert('CMYK'),'cmyk.jpg','JPEG')
# centroids: first byte picks d = 1 + b % 8
w('centroids/plain-d3.csv', bytes([2]) + b'0.1,0.2,0.3\n0.4,0.5,0.6\n')
w('centroids/export-d2.csv', bytes([1]) + b'cluster,x,y,share\n0,1.5,2.5,0.25\n1,3,4,0.75\n')
w('centroids/d1.txt', bytes([0]) + b'1\n2\n3\n')
# load: first byte picks the suffix (index into the table in fuzz_load.cpp)
suffixes=['','.csv','.tsv','.txt','.xyz','.dat','.bin','.npy','.ply','.png','.jpg','.gif','.bmp']
for name in os.listdir(C+'text'): w('load/'+name, bytes([1])+open(C+'text/'+name,'rb').read())
for name in os.listdir(C+'binary'): w('load/'+name, bytes([6])+open(C+'binary/'+name,'rb').read()); w('load/noext-'+name, bytes([0])+open(C+'binary/'+name,'rb').read())
for name in os.listdir(C+'npy'): w('load/'+name, bytes([7])+open(C+'npy/'+name,'rb').read())
for name in os.listdir(C+'ply'): w('load/'+name, bytes([8])+open(C+'ply/'+name,'rb').read())
for name in ['rgb.png','rgb.jpg','rgb.gif','rgb.bmp','rgb.webp']: w('load/'+name, bytes([0])+open(C+'image/'+name,'rb').read())
w('load/dat-text.dat', bytes([5]) + b'1 2\n3 4\n')
